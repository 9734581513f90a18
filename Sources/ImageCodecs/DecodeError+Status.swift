internal import CImageCodecs

extension DecodeError {
  /// The one place where a C status becomes a Swift error.
  init(status: imc_status, format: Int32, path: String?) {
    let kind: Kind =
      switch status.code {
      case Int32(IMC_ERR_NOT_IMAGE): .notAnImage
      case Int32(IMC_ERR_TRUNCATED): .truncated
      case Int32(IMC_ERR_UNSUPPORTED): .unsupported
      case Int32(IMC_ERR_LIMIT): .limitExceeded
      case Int32(IMC_ERR_NO_MEMORY): .outOfMemory
      case Int32(IMC_ERR_IO): .io
      case Int32(IMC_ERR_ARGUMENT): .invalidArgument
      default: .corrupt
      }
    self.init(kind: kind, format: ImageFormat(code: format), message: status.messageText, path: path)
  }
}

extension imc_status {
  /// The message as a Swift string (it is always NUL-terminated by the shim).
  var messageText: String {
    withUnsafeBytes(of: message) { raw in
      let bytes = raw.prefix { $0 != 0 }
      return String(decoding: bytes, as: UTF8.self)
    }
  }
}
