import ImageCodecs

/// Integer box shrink: each output pixel is the rounded mean of a `factorX` x `factorY` block of
/// input pixels. The last column and row of blocks may be partial; they average what they cover.
/// Cheap (a few additions per input sample), so it takes the bulk of a large reduction before the
/// accurate filter runs on a small image.
///
/// With `premultiplying`, alpha images are premultiplied on the way in: the block sums colour
/// times alpha at full precision and the output is premultiplied 8-bit, in one pass over the
/// (large) source instead of two.
///
/// The sums never wrap, whatever factors the plan picks (up to half the largest side each): rows
/// are added into 32-bit column sums that are carried into 64-bit ones before they could
/// overflow, and blocks are totalled in 64 bits.
enum BoxShrink {
  /// Shrinks an 8-bit image.
  /// - Parameters:
  ///   - image: An 8-bit image (gray8, grayAlpha8, rgb8 or rgba8).
  ///   - factorX: Input columns per output column, at least 1.
  ///   - factorY: Input rows per output row, at least 1.
  ///   - premultiplying: For images with alpha: the input has straight alpha and the output
  ///     should be premultiplied.
  /// - Returns: An image of `ceil(width / factorX)` x `ceil(height / factorY)` pixels.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when its buffers cannot be allocated.
  static func shrink(_ image: Image, factorX: Int, factorY: Int, premultiplying: Bool = false) throws(DecodeError)
    -> Image
  {
    let shrinker = try BoxShrinker(
      width: image.width, pixelFormat: image.pixelFormat, factorX: factorX, factorY: factorY,
      premultiplying: premultiplying)
    let height = image.height
    let outHeight = (height + factorY - 1) / factorY
    var result = try Image(width: shrinker.outputWidth, height: outHeight, pixelFormat: image.pixelFormat)
    let inStride = image.bytesPerRow
    let outStride = result.bytesPerRow
    try image.withUnsafeBytes { (inBytes) throws(DecodeError) in
      try result.withUnsafeMutableBytes { outBytes in
        let input = inBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let output = outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var oy = 0
        for y in 0..<height where shrinker.add(input + y * inStride) {
          shrinker.emitRow(into: output + oy * outStride)
          oy += 1
        }
        if shrinker.hasPendingRows { shrinker.emitRow(into: output + oy * outStride) }
      }
    }
    return result
  }
}

/// The box shrink of rows arriving one at a time (from a decoder, say): it holds one row of
/// column sums, not the image. Add rows with ``add(_:)``; when it reports a complete block (or
/// after the last row, if ``hasPendingRows``), ``emitRow(into:)`` writes one output row.
final class BoxShrinker {
  /// Input pixels per row.
  let width: Int
  /// Interleaved channels per pixel.
  let channels: Int
  /// Input columns per output column.
  let factorX: Int
  /// Input rows per output row.
  let factorY: Int
  /// Whether alpha is premultiplied on the way in (only for formats with alpha).
  let premultiplying: Bool
  /// Output pixels per row: `ceil(width / factorX)`.
  let outputWidth: Int

  /// Per-sample sums of the rows added since the last carry.
  private let sums: UnsafeMutablePointer<UInt32>
  /// Per-sample sums carried out of `sums` (only when a block has more rows than `sums` can
  /// hold without wrapping).
  private let carried: UnsafeMutablePointer<UInt64>?
  /// Rows `sums` holds safely: `UInt32.max / largest sample`.
  private let rowsPerCarry: Int
  /// Rows added to the current block.
  private(set) var rows = 0
  /// Rows added to `sums` since the last carry.
  private var rowsInSums = 0

  /// Prepares a shrink of rows `width` pixels wide.
  /// - Parameters:
  ///   - width: Input pixels per row, at least 1.
  ///   - pixelFormat: An 8-bit pixel format.
  ///   - factorX: Input columns per output column, at least 1.
  ///   - factorY: Input rows per output row, at least 1.
  ///   - premultiplying: See ``BoxShrink``.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the sums cannot be allocated.
  init(width: Int, pixelFormat: PixelFormat, factorX: Int, factorY: Int, premultiplying: Bool) throws(DecodeError) {
    let channels = pixelFormat.channelCount
    let premultiplying = premultiplying && pixelFormat.hasAlpha
    let rowLength = width * channels
    let rowsPerCarry = Int(UInt32.max / (premultiplying ? 255 * 255 : 255))
    let sums = try ScratchMemory.allocate(UInt32.self, count: rowLength)
    sums.initialize(repeating: 0, count: rowLength)
    var carried: UnsafeMutablePointer<UInt64>? = nil
    if factorY > rowsPerCarry {
      do {
        carried = try ScratchMemory.allocate(UInt64.self, count: rowLength)
        carried!.initialize(repeating: 0, count: rowLength)
      } catch {
        ScratchMemory.release(sums)
        throw error
      }
    }
    self.width = width
    self.channels = channels
    self.factorX = max(1, factorX)
    self.factorY = max(1, factorY)
    self.premultiplying = premultiplying
    outputWidth = (width + self.factorX - 1) / self.factorX
    self.rowsPerCarry = rowsPerCarry
    self.sums = sums
    self.carried = carried
  }

  deinit {
    ScratchMemory.release(sums)
    if let carried { ScratchMemory.release(carried) }
  }

  /// Whether rows were added since the last output row (the last, partial block).
  var hasPendingRows: Bool { rows > 0 }

  /// Adds one input row.
  /// - Parameter row: `width` pixels of 8-bit samples.
  /// - Returns: Whether the row completed a block: call ``emitRow(into:)`` now.
  func add(_ row: UnsafePointer<UInt8>) -> Bool {
    if rowsInSums == rowsPerCarry, let carried {
      for i in 0..<(width * channels) { carried[i] &+= UInt64(sums[i]) }
      sums.update(repeating: 0, count: width * channels)
      rowsInSums = 0
    }
    switch (premultiplying, channels) {
    case (true, 2): Self.addPremultiplied(row, to: sums, pixels: width, channels: 2)
    case (true, _): Self.addPremultiplied(row, to: sums, pixels: width, channels: 4)
    default: Self.add(row, to: sums, count: width * channels)
    }
    rows += 1
    rowsInSums += 1
    return rows == factorY
  }

  /// Writes the output row of the rows added since the last one, and starts the next block.
  /// - Parameter out: `outputWidth` pixels.
  func emitRow(into out: UnsafeMutablePointer<UInt8>) {
    let scale = premultiplying ? 255 : 1  // premultiplied sums carry a factor of 255
    switch channels {
    case 1: average(out, rows: rows * scale, channels: 1)
    case 2: average(out, rows: rows * scale, channels: 2)
    case 3: average(out, rows: rows * scale, channels: 3)
    default: average(out, rows: rows * scale, channels: 4)
    }
    sums.update(repeating: 0, count: width * channels)
    carried?.update(repeating: 0, count: width * channels)
    rows = 0
    rowsInSums = 0
  }

  /// Adds a row of samples to the column sums, sixteen at a time.
  @inline(__always)
  static func add(_ row: UnsafePointer<UInt8>, to sums: UnsafeMutablePointer<UInt32>, count: Int) {
    let source = UnsafeRawPointer(row)
    let target = UnsafeMutableRawPointer(sums)
    var i = 0
    while i + 16 <= count {
      let samples = source.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      let low = SIMD8<UInt32>(truncatingIfNeeded: samples.lowHalf)
      let high = SIMD8<UInt32>(truncatingIfNeeded: samples.highHalf)
      let first = target.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt32>.self)
      let second = target.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<UInt32>.self)
      target.storeBytes(of: first &+ low, toByteOffset: i * 4, as: SIMD8<UInt32>.self)
      target.storeBytes(of: second &+ high, toByteOffset: i * 4 + 32, as: SIMD8<UInt32>.self)
      i += 16
    }
    while i < count {
      sums[i] &+= UInt32(row[i])
      i += 1
    }
  }

  /// Adds a row of straight-alpha pixels as premultiplied values: colour times alpha, and alpha
  /// times 255 (so every channel carries the same factor of 255).
  @inline(__always)
  static func addPremultiplied(
    _ row: UnsafePointer<UInt8>, to sums: UnsafeMutablePointer<UInt32>, pixels: Int, channels: Int
  ) {
    var source = row
    var target = sums
    for _ in 0..<pixels {
      let alpha = UInt32(source[channels - 1])
      for c in 0..<(channels - 1) { target[c] &+= UInt32(source[c]) &* alpha }
      target[channels - 1] &+= alpha &* 255
      source += channels
      target += channels
    }
  }

  /// Sums each block of `factorX` columns and writes the rounded means of one output row.
  /// - Parameters:
  ///   - out: The output row.
  ///   - rows: The rows in the block, times 255 for premultiplied sums.
  ///   - channels: Constant at each call site so the loops unroll.
  @inline(__always)
  private func average(_ out: UnsafeMutablePointer<UInt8>, rows: Int, channels: Int) {
    let fullCount = factorX * rows
    let fullScale = fullCount <= Int(UInt32.max / 255) ? Self.reciprocal(UInt32(fullCount)) : 0
    var ox = 0
    if carried == nil && fullCount <= Int(UInt32.max / 255) {
      // The common case: whole blocks in 32-bit scalars, specialised per channel count.
      switch channels {
      case 1:
        ox = Self.averageWholeBlocks(
          out, sums: sums, width: width, factorX: factorX, scale: fullScale, ChannelsOf1.self)
      case 2:
        ox = Self.averageWholeBlocks(
          out, sums: sums, width: width, factorX: factorX, scale: fullScale, ChannelsOf2.self)
      case 3:
        ox = Self.averageWholeBlocks(
          out, sums: sums, width: width, factorX: factorX, scale: fullScale, ChannelsOf3.self)
      default:
        ox = Self.averageWholeBlocks(
          out, sums: sums, width: width, factorX: factorX, scale: fullScale, ChannelsOf4.self)
      }
    }
    while ox < outputWidth {
      defer { ox += 1 }
      let first = ox * factorX
      let columns = min(factorX, width - first)
      let count = columns == factorX ? fullCount : columns * rows
      var totals = SIMD4<UInt64>.zero
      var column = sums + first * channels
      for _ in 0..<columns {
        for c in 0..<channels { totals[c] &+= UInt64(column[c]) }
        column += channels
      }
      if let carried {
        var wide = carried + first * channels
        for _ in 0..<columns {
          for c in 0..<channels { totals[c] &+= wide[c] }
          wide += channels
        }
      }
      if count <= Int(UInt32.max / 255) {
        // Every total fits in 32 bits: a multiply by the rounded reciprocal divides exactly enough.
        let scale = count == fullCount ? fullScale : Self.reciprocal(UInt32(count))
        for c in 0..<channels {
          out[ox * channels + c] = UInt8(truncatingIfNeeded: (totals[c] &* scale &+ (1 << 31)) >> 32)
        }
      } else {
        let divisor = UInt64(count)
        for c in 0..<channels {
          out[ox * channels + c] = UInt8(truncatingIfNeeded: (totals[c] + divisor / 2) / divisor)
        }
      }
    }
  }

  /// The whole blocks of a row of sums (no carried sums, `factorX x rows` at most `UInt32.max / 255`,
  /// so every block's total, at most that count times 255, fits in 32 bits): the same arithmetic
  /// as ``average(_:rows:channels:)``'s, in scalars.
  /// - Returns: How many output pixels were written (`width / factorX`).
  @inline(__always)
  static func averageWholeBlocks<C: ChannelCount>(
    _ out: UnsafeMutablePointer<UInt8>, sums: UnsafeMutablePointer<UInt32>, width: Int, factorX: Int, scale: UInt64,
    _: C.Type
  ) -> Int {
    let channels = C.value
    let blocks = width / factorX
    var column = UnsafePointer(sums)
    var target = out
    for _ in 0..<blocks {
      var (t0, t1, t2, t3): (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
      for _ in 0..<factorX {
        t0 &+= column[0]
        if channels > 1 { t1 &+= column[1] }
        if channels > 2 { t2 &+= column[2] }
        if channels > 3 { t3 &+= column[3] }
        column += channels
      }
      target[0] = UInt8(truncatingIfNeeded: (UInt64(t0) &* scale &+ (1 << 31)) >> 32)
      if channels > 1 { target[1] = UInt8(truncatingIfNeeded: (UInt64(t1) &* scale &+ (1 << 31)) >> 32) }
      if channels > 2 { target[2] = UInt8(truncatingIfNeeded: (UInt64(t2) &* scale &+ (1 << 31)) >> 32) }
      if channels > 3 { target[3] = UInt8(truncatingIfNeeded: (UInt64(t3) &* scale &+ (1 << 31)) >> 32) }
      target += channels
    }
    return blocks
  }

  /// `2^32 / count`, rounded: multiplying a sum by it and shifting right by 32 divides with rounding.
  @inline(__always)
  static func reciprocal(_ count: UInt32) -> UInt64 { ((1 << 32) + UInt64(count / 2)) / UInt64(count) }
}

/// A channel count known at compile time, so generic code specialised for it unrolls.
protocol ChannelCount { static var value: Int { get } }
/// One channel.
enum ChannelsOf1: ChannelCount { static var value: Int { 1 } }
/// Two channels.
enum ChannelsOf2: ChannelCount { static var value: Int { 2 } }
/// Three channels.
enum ChannelsOf3: ChannelCount { static var value: Int { 3 } }
/// Four channels.
enum ChannelsOf4: ChannelCount { static var value: Int { 4 } }
