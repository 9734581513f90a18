public import ImageCodecs

/// Everything that decides what a thumbnail looks like and how it is stored.
///
/// ```swift
/// var options = ThumbnailOptions(size: .box(width: 320, height: 200))
/// options.fit = .cover
/// options.format = .jpeg(quality: 80)
/// ```
public struct ThumbnailOptions: Sendable, Equatable {
  /// The requested size.
  public var size: ThumbnailSize
  /// How a box request is fitted; ignored for ``ThumbnailSize/longestSide(_:)``.
  public var fit: ThumbnailFit
  /// Which part a ``ThumbnailFit/cover`` crop keeps: ``ThumbnailCropAnchor/centre`` (the default)
  /// or ``ThumbnailCropAnchor/attention`` (the most detailed part; `imgfetch --crop attention`).
  /// Ignored when nothing is cropped. Recorded in the stamp when it is not the centre.
  public var cropAnchor = ThumbnailCropAnchor.centre
  /// Whether an image smaller than the request is enlarged (off by default: it keeps its size).
  public var allowsUpscaling: Bool
  /// Whether the EXIF orientation is applied so the thumbnail is upright (on by default).
  public var appliesOrientation: Bool
  /// The filter of the final resampling step.
  public var filter: ResampleFilter
  /// The output format.
  public var format: ThumbnailFormat
  /// Limits the source must respect before any pixel memory is allocated.
  public var limits: DecodeLimits
  /// Whether each thumbnail file is flushed to disk (`fsync`) before it is renamed into place.
  /// Off by default: the write is atomic either way (readers see the old file or the new one),
  /// thumbnails can be rebuilt, and a flush costs more than making a thumbnail. A file left
  /// incomplete by a power failure is detected (it does not end as a JPEG or PNG must) and rebuilt.
  public var flushesToDisk: Bool
  /// The colour space of the thumbnail's pixels: sRGB (the default: converted from the source's
  /// profile after the shrink, so every viewer shows the colours the source means), or the
  /// source's own with its profile embedded (for archives). Recorded in the stamp.
  public var colorSpace: ThumbnailColorSpace
  /// Where thumbnail files go: next to their originals (`nil`, the default), or under a folder that
  /// mirrors the source tree (see ``ThumbnailDirectory``).
  public var outputDirectory: ThumbnailDirectory?
  /// The thumbnail's file name, from a template such as `tn_%s.jpg` (`imgfetch --output`), instead
  /// of ``ThumbnailNaming``'s `<name>.thumb-<size>.<ext>` (`nil`, the default). ``format``'s choice
  /// must be the template's ``ThumbnailNameTemplate/format``.
  public var nameTemplate: ThumbnailNameTemplate?
  /// Whether the source's Exif block is kept in the thumbnail (`imgfetch --keep-metadata`), its
  /// orientation tag set to 1 when the orientation is applied. Off by default: a thumbnail
  /// carries no Exif, so no GPS position, camera or date leaves with it (only the stamp and, when
  /// not sRGB, the colour profile). Recorded in the stamp.
  public var keepsExif = false
  /// The colour alpha is composited over in a JPEG thumbnail (`imgfetch --background`); white by
  /// default. Recorded in the stamp when it is not white.
  public var background = ThumbnailBackground.white
  /// Whether a file at a thumbnail's name that imgfetch did not make (one without a
  /// ``ThumbnailStamp``, or a symbolic link) is replaced. Off by default: such a file is someone's,
  /// and the thumbnail fails with ``ThumbnailError/occupied(path:by:)`` instead (`imgfetch
  /// --overwrite` turns it on). A FIFO, device or folder there is never replaced, nor opened.
  public var replacesUnstampedFiles = false
  /// Whether an up-to-date thumbnail is made again instead of being reused (`imgfetch --force`):
  /// after a change imgfetch cannot see in the stamp, such as a new libjpeg. Off by default.
  public var remakesCurrentThumbnails = false
  /// Whether each result carries the thumbnail's ``ThumbHash`` (``ThumbnailResult/thumbHash``;
  /// `imgfetch --placeholder thumbhash`). Off by default. Computed from the pixels written to the
  /// thumbnail file (no second decode of the source); for a reused thumbnail, from a decode of
  /// that small file. Not recorded in the stamp: it changes nothing in the file.
  public var makesThumbHash = false
  /// Whether a downloaded original stays in the cache once its thumbnails are made (the default).
  /// False (`imgfetch --thumbnails-only`), `ImageFetcher`'s thumbnail loads validate the download,
  /// write its thumbnails and then remove the cache entry; a later load finds the thumbnails current
  /// from their stamps (``Thumbnailer/existingThumbnails(ofRemovedSourceAt:sizes:)``) and downloads
  /// nothing. ``Thumbnailer`` itself never removes a file. Not recorded in the stamp.
  public var keepsCachedOriginal = true

  /// Creates options.
  /// - Parameters:
  ///   - size: The requested size.
  ///   - fit: `.inside` by default.
  ///   - allowsUpscaling: `false` by default.
  ///   - appliesOrientation: `true` by default.
  ///   - filter: `.lanczos3` by default.
  ///   - format: `.automatic` by default (JPEG quality 85 for opaque sources, PNG for sources with alpha).
  ///   - limits: ``/ImageCodecs/DecodeLimits/standard`` by default.
  ///   - flushesToDisk: `false` by default.
  ///   - colorSpace: `.sRGB` by default.
  ///   - outputDirectory: `nil` (next to the originals) by default.
  public init(
    size: ThumbnailSize, fit: ThumbnailFit = .inside, allowsUpscaling: Bool = false,
    appliesOrientation: Bool = true,
    filter: ResampleFilter = .lanczos3, format: ThumbnailFormat = .automatic,
    limits: DecodeLimits = .standard,
    flushesToDisk: Bool = false, colorSpace: ThumbnailColorSpace = .sRGB,
    outputDirectory: ThumbnailDirectory? = nil
  ) {
    self.size = size
    self.fit = fit
    self.allowsUpscaling = allowsUpscaling
    self.appliesOrientation = appliesOrientation
    self.filter = filter
    self.format = format
    self.limits = limits
    self.flushesToDisk = flushesToDisk
    self.colorSpace = colorSpace
    self.outputDirectory = outputDirectory
  }

  /// These options with another size: what each size of a set (`--thumbnail 64,256,1024`) is made,
  /// named, stamped and reused with.
  /// - Parameter size: The size.
  /// - Returns: A copy with ``size`` replaced.
  public func sized(_ size: ThumbnailSize) -> ThumbnailOptions {
    var options = self
    options.size = size
    return options
  }
}

extension ThumbnailOptions {
  /// The decode every thumbnail is made from: the source's channels, these limits, strict (a
  /// thumbnail is made only of a complete, valid image), at `scale`.
  func sourceDecodeOptions(at scale: JPEGScale = .full) -> DecodeOptions {
    DecodeOptions(pixelFormat: .source, limits: limits, strictness: .strict, jpegScale: scale)
  }
}
