import FixtureSupport
import Foundation
import Testing

@testable import ImageCodecs

/// Large freed buffers are reused by the next image instead of being faulted in again.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(30))) struct PixelBufferPoolTests {
  let big = 40 << 20

  /// Issue 13.7: a library keeps none of its users' memory unless the application asks.
  @Test func poolingIsOffUnlessTheApplicationTurnsItOn() throws {
    let pool = PixelBufferPool()
    #expect(pool.maximumBytes == 0)
    let buffer = try #require(pool.allocateIfAvailable(capacity: big))
    pool.recycle(buffer.pointer, capacity: buffer.capacity)
    #expect(pool.pooledBytes == 0)
  }

  @Test func aFreedLargeBufferIsReusedByTheNextAllocation() throws {
    let pool = PixelBufferPool()
    pool.maximumBytes = 256 << 20
    let first = try #require(pool.allocateIfAvailable(capacity: big))
    pool.recycle(first.pointer, capacity: first.capacity)
    #expect(pool.pooledBytes == big)
    let second = try #require(pool.allocateIfAvailable(capacity: big - 1000))
    #expect(second.pointer == first.pointer && second.capacity == big)
    #expect(pool.pooledBytes == 0)
    pool.recycle(second.pointer, capacity: second.capacity)
    pool.removeAll()
    #expect(pool.pooledBytes == 0)
  }

  @Test func smallBuffersAndTooLargeRequestsGoToTheSystem() throws {
    let pool = PixelBufferPool()
    pool.maximumBytes = 256 << 20
    let small = try #require(pool.allocateIfAvailable(capacity: 1 << 20))
    pool.recycle(small.pointer, capacity: small.capacity)
    #expect(pool.pooledBytes == 0)
    let kept = try #require(pool.allocateIfAvailable(capacity: big))
    pool.recycle(kept.pointer, capacity: kept.capacity)
    let larger = try #require(pool.allocateIfAvailable(capacity: big * 2))
    #expect(larger.pointer != kept.pointer)
    pool.recycle(larger.pointer, capacity: larger.capacity)
    pool.removeAll()
  }

  @Test func limitsAreKept() throws {
    let pool = PixelBufferPool()
    pool.maximumBytes = 256 << 20
    pool.maximumBuffers = 2
    let buffers = try (0..<3).map { _ in try #require(pool.allocateIfAvailable(capacity: big)) }
    for buffer in buffers { pool.recycle(buffer.pointer, capacity: buffer.capacity) }
    #expect(pool.pooledBytes == 2 * big)
    pool.maximumBytes = big
    #expect(pool.pooledBytes == big)
    pool.maximumBytes = 0
    #expect(pool.pooledBytes == 0)
    let refused = try #require(pool.allocateIfAvailable(capacity: big))
    pool.recycle(refused.pointer, capacity: refused.capacity)
    #expect(pool.pooledBytes == 0)
  }
}

/// Issue 11.13: pixel memory sized by input is an error when it is not available, never a trap.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(30))) struct ImageAllocationTests {
  /// 2^20 x 2^20 RGBA16: 8 TiB, within `Int` but beyond any machine.
  static let side = 1 << 20

  @Test func anImageFromBytesThatCannotBeAllocatedIsNil() throws {
    // A lazy collection claiming 8 TiB of zeros: only the allocation could fail, and it must not trap.
    let bytes = repeatElement(UInt8(0), count: Self.side * Self.side * 8)
    #expect(Image(width: Self.side, height: Self.side, pixelFormat: .rgba16, bytes: bytes) == nil)
  }

  @Test func allocatingAnImageThatCannotExistThrowsOutOfMemory() throws {
    let error = #expect(throws: DecodeError.self) {
      try Image(width: Self.side, height: Self.side, pixelFormat: .rgba16)
    }
    #expect(error?.kind == .outOfMemory)
    #expect(error?.message == "cannot allocate 8796093022208 bytes for 1048576x1048576 pixels")
  }

  @Test func anImageWhoseByteCountOverflowsIsAnInvalidSizeNotATrap() throws {
    let error = #expect(throws: DecodeError.self) {
      try Image(width: Int.max / 2, height: 3, pixelFormat: .rgba8)
    }
    #expect(error?.kind == .invalidArgument)
    #expect(throws: DecodeError.self) { try Image(width: 0, height: 3, pixelFormat: .rgba8) }
  }

  /// An image that claims 2^62 bytes over a 64-byte buffer: any copy of it must be allocated anew,
  /// and no machine has the memory (the claim is never read: the allocation fails first).
  static func unallocatable(orientation: ExifOrientation = .up) throws -> Image {
    let storage = try #require(PixelStorage(reserving: 64))
    return Image(
      width: 1 << 30, height: 1 << 30, pixelFormat: .rgba8, bytesPerRow: 1 << 32, orientation: orientation,
      storage: storage)
  }

  @Test func theCopyOnWriteCopyThatCannotBeAllocatedThrowsAndChangesNothing() throws {
    let shared = try Self.unallocatable()
    var copy = shared
    var called = false
    let error = #expect(throws: DecodeError.self) {
      try copy.withUnsafeMutableBytes { _ in called = true }
    }
    #expect(error?.kind == .outOfMemory)
    #expect(error?.message == "cannot allocate 4611686018427387904 bytes for a copy of 1073741824x1073741824 pixels")
    #expect(!called)
    #expect(copy.storage === shared.storage)
    // An unshared image is written in place: nothing to allocate.
    var own = try Image(width: 2, height: 2, pixelFormat: .gray8)
    try own.withUnsafeMutableBytes { $0[3] = 9 }
    #expect(own.bytes == [0, 0, 0, 9])
  }

  @Test func turningUprightWithoutMemoryForTheCopyThrows() throws {
    let error = #expect(throws: DecodeError.self) { try Self.unallocatable(orientation: .right).oriented() }
    #expect(error?.kind == .outOfMemory)
    #expect(error?.message.hasPrefix("cannot allocate 4611686018427387904 bytes for the upright") == true)
  }

  /// The real thing: `imgfetch decode --orient` of a 6400x6300 RGB JPEG (121 MB of pixels, EXIF
  /// orientation 6) under 192 MiB of address space: the decode fits, the upright copy cannot (two
  /// buffers are 242 MB). One line and exit 4 (out of memory), not a trap. (An AddressSanitizer
  /// build cannot start under an address-space limit, and ASan's own cap is per allocation, which
  /// cannot tell the decode's buffer from the copy's: `scripts/sanitize address` leaves this test
  /// out by name; `scripts/test` runs it.)
  @Test
  func uprightingAnImageTooLargeForMemoryIsOutOfMemoryNotACrash() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "upright-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let (width, height) = (6400, 6300)
    var jpeg = try ImageEncoder.encode(try Image(width: width, height: height, pixelFormat: .rgb8), as: .jpeg())
    // APP1 "Exif": a little-endian TIFF whose one IFD entry is Orientation (0x0112) = 6.
    let tiff: [UInt8] = [
      0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00,
      0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ]
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let segment: [UInt8] = [0xFF, 0xE1, 0x00, UInt8(payload.count + 2)] + payload
    jpeg.insert(contentsOf: segment, at: 2)
    let path = directory.appendingPathComponent("portrait.jpg").path
    try Data(jpeg).write(to: URL(fileURLWithPath: path))
    #expect(try ImageDecoder.probe(contentsOf: path).orientation == .right)
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let run = try runProcess(
      "/usr/bin/prlimit", ["--as=\(192 << 20)", "--", binary, "decode", "--orient", path, "-o", "/dev/null"],
      environment: ["SWIFT_BACKTRACE": "enable=no"])
    #expect(run.status == 4, "\(run.stderrText)")
    #expect(run.stderrText.contains("out of memory"), "\(run.stderrText)")
    #expect(
      run.stderrText.contains("cannot allocate \(width * height * 3) bytes for the upright \(height)x\(width) pixels"),
      "\(run.stderrText)")
    #expect(run.stderrText.split(separator: "\n").count == 1, "\(run.stderrText)")
    // Without --orient the same file decodes under the same limit: the decode itself fits.
    let plain = try runProcess(
      "/usr/bin/prlimit", ["--as=\(192 << 20)", "--", binary, "decode", path, "-o", "/dev/null"],
      environment: ["SWIFT_BACKTRACE": "enable=no"])
    #expect(plain.status == 0, "\(plain.stderrText)")
  }
}
