//! warpforge
