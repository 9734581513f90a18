extension Image {
  /// Creates an image whose pixels are all zero, or throws when the memory for them is not
  /// available (a `ulimit`, a container), instead of stopping the process as
  /// ``init(width:height:pixelFormat:orientation:)`` does.
  ///
  /// For buffers sized by the input (a resampler's output, a strip of rows), where running out of
  /// memory is an error for this one image.
  /// - Parameters:
  ///   - width: Width in pixels, at least 1.
  ///   - height: Height in pixels, at least 1.
  ///   - pixelFormat: The pixel layout.
  ///   - orientation: The EXIF orientation to carry.
  /// - Throws: ``DecodeError`` of kind ``DecodeError/Kind/outOfMemory`` when the pixels cannot be
  ///   allocated, ``DecodeError/Kind/invalidArgument`` when the size is not positive or its byte
  ///   count does not fit in `Int`.
  public init(
    allocatingWidth width: Int, height: Int, pixelFormat: PixelFormat, orientation: ExifOrientation = .up
  ) throws(DecodeError) {
    guard let size = Image.byteLayout(width: width, height: height, pixelFormat: pixelFormat) else {
      throw DecodeError(
        kind: .invalidArgument, format: nil, message: "image size \(width)x\(height) is not representable")
    }
    guard let storage = PixelStorage(reserving: size.byteCount) else {
      throw DecodeError(
        kind: .outOfMemory, format: nil,
        message: "cannot allocate \(size.byteCount) bytes for \(width)x\(height) pixels")
    }
    storage.pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size.byteCount)
    self.init(
      width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: size.bytesPerRow,
      orientation: orientation, storage: storage)
  }
}
