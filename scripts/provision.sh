# Provisions what the tests need and a script can get without a person. Sourced (not run) by
# scripts/test.sh and .ci/run, so that it can export WARPFORGE_PTXAS:
#
#   ptxas     NVIDIA's assembler from the pinned PyPI wheel nvidia-cuda-nvcc-cu12, unpacked into
#             target/tools/ (no root needed). Skipped when WARPFORGE_PTXAS is set or a ptxas is found on
#             PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin.
#   lavapipe  Mesa's software Vulkan device (Debian packages mesa-vulkan-drivers, libvulkan1) through
#             apt-get, only when running as root with apt-get available and no lavapipe installed.
#   spirv-val SPIRV-Tools' validator (Debian package spirv-tools), the same way, for the SPIR-V target's
#             tests. Skipped when WARPFORGE_SPIRV_VAL is set or spirv-val is on PATH.
#
# What it cannot provision it says here, with the command that would; the tests that need it then skip
# loudly (or fail, where WARPFORGE_REQUIRE_PTXAS=1 / WARPFORGE_REQUIRE_WEBGPU=1 /
# WARPFORGE_REQUIRE_SPIRV_VAL=1 say they must run).
# WARPFORGE_NO_PROVISION=1 skips all of it. WARPFORGE_PROVISION_STRICT=1 (CI) makes a failure fatal.

WARPFORGE_PTXAS_WHEEL=nvidia-cuda-nvcc-cu12==12.8.93

provision_say() { echo "provision: $*" >&2; }

provision_fail() {
  provision_say "$*"
  if [ "${WARPFORGE_PROVISION_STRICT:-0}" = 1 ]; then
    provision_say "WARPFORGE_PROVISION_STRICT=1: stopping"
    return 1
  fi
  return 0
}

provision_ptxas() {
  if [ -n "${WARPFORGE_PTXAS:-}" ]; then
    provision_say "ptxas: WARPFORGE_PTXAS=$WARPFORGE_PTXAS"
    return 0
  fi
  local found
  for found in "$(command -v ptxas 2>/dev/null)" "${CUDA_HOME:+$CUDA_HOME/bin/ptxas}" /usr/local/cuda/bin/ptxas; do
    if [ -n "$found" ] && [ -x "$found" ]; then
      provision_say "ptxas: $found"
      return 0
    fi
  done
  local version=${WARPFORGE_PTXAS_WHEEL#*==}
  local tools="$PWD/target/tools/nvcc-$version"
  local ptxas="$tools/nvidia/cuda_nvcc/bin/ptxas"
  if [ ! -x "$ptxas" ]; then
    provision_say "ptxas: installing the PyPI wheel $WARPFORGE_PTXAS_WHEEL into $tools"
    if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
      --no-deps --target "$tools" "$WARPFORGE_PTXAS_WHEEL" >&2; then
      provision_fail "ptxas: could not install $WARPFORGE_PTXAS_WHEEL (needs python3 with pip and PyPI);" \
        "the ptxas tests will skip. To run them: python3 -m pip install --no-deps --target $tools $WARPFORGE_PTXAS_WHEEL"
      return
    fi
  fi
  export WARPFORGE_PTXAS="$ptxas"
  provision_say "ptxas: $WARPFORGE_PTXAS ($("$ptxas" --version | tail -n 1))"
}

provision_lavapipe() {
  if ls /usr/share/vulkan/icd.d/lvp_icd.*.json >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1'; then
    provision_say "webgpu: Mesa lavapipe is installed"
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    provision_fail "webgpu: no lavapipe, and installing it needs root and apt-get; the WebGPU tests will skip" \
      "unless a GPU adapter is found. To run them: sudo apt-get install mesa-vulkan-drivers libvulkan1"
    return
  fi
  provision_say "webgpu: installing Mesa lavapipe (apt-get install mesa-vulkan-drivers libvulkan1)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null; } >&2; then
    provision_fail "webgpu: apt-get could not install mesa-vulkan-drivers libvulkan1; the WebGPU tests will skip"
  fi
}

provision_spirv_val() {
  if [ -n "${WARPFORGE_SPIRV_VAL:-}" ]; then
    provision_say "spirv-val: WARPFORGE_SPIRV_VAL=$WARPFORGE_SPIRV_VAL"
    return 0
  fi
  if command -v spirv-val >/dev/null 2>&1; then
    provision_say "spirv-val: $(command -v spirv-val)"
    return 0
  fi
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    provision_fail "spirv-val: not found, and installing it needs root and apt-get; the spirv-val tests will" \
      "skip. To run them: sudo apt-get install spirv-tools (or set WARPFORGE_SPIRV_VAL)"
    return
  fi
  provision_say "spirv-val: installing SPIRV-Tools (apt-get install spirv-tools)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq spirv-tools >/dev/null; } >&2; then
    provision_fail "spirv-val: apt-get could not install spirv-tools; the spirv-val tests will skip"
  fi
}

if [ "${WARPFORGE_NO_PROVISION:-0}" = 1 ]; then
  provision_say "WARPFORGE_NO_PROVISION=1: nothing provisioned"
else
  provision_ptxas && provision_lavapipe && provision_spirv_val
fi
