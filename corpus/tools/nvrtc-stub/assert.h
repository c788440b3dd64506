// empty: NVRTC has no C library headers; the kernels of this corpus use none of their declarations
