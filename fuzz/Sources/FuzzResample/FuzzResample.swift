@_spi(Fuzzing) import Thumbnails

/// libFuzzer entry point, differential: the resampler's two inner loops (`CodecEngines/Resample`,
/// SSE2 here) against the plain 32-bit arithmetic they stand for, on the taps, weights, line lengths,
/// padding, shift and samples the input describes (`ResampleKernelCheck` lists its bytes). Any
/// difference is a crash; the buffers are exactly as long as the kernels may touch.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzResample(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  precondition(ResampleKernelCheck.agrees(input), "a resampling kernel's sums differ from the plain arithmetic")
  return 0
}
