import FoundationEssentials
import ParseFetch
import SystemFiles
import Thumbnails

/// `--dry-run` of the default command: what a run would download, write or reuse, one line each,
/// with nothing downloaded, written or created and no request sent (a Parse object or class is
/// named, not queried). Local sources and cached downloads are planned from their headers and
/// their thumbnails' stamps (``/Thumbnails/Thumbnailer/plannedThumbnail(forFileAt:)``); their
/// pixels are not decoded, so a dry run does not say whether they are valid. The options are
/// checked as a real run checks them (the same usage errors, exit 1).
enum DryRun {
  /// One thing the run would do.
  struct Step {
    var source: String
    var action: String
    var path: String?
    var size: (Int, Int)?

    /// `would write photo.jpg.thumb-256.jpg (256x171) from photo.jpg`, and the like.
    var line: String {
      let sized = size.map { " (\($0.0)x\($0.1))" } ?? ""
      switch action {
      case "write": return "would write \(path!)\(sized) from \(source)"
      case "upToDate": return "up to date: \(path!) from \(source)"
      case "validate": return "would validate \(source)"
      case "download": return "would download \(source) to \(path!)"
      case "cached": return "cached: \(source) as \(path!)"
      case "query": return "would query \(source) and download its file unless it is cached"
      case "removeOriginal":
        // A Parse object's cache entry is named by its query's answer, which a dry run does not ask.
        let original = path ?? "the file of \(source)"
        return "would remove \(original) once its thumbnails are written (--thumbnails-only)"
      case "skip": return "would skip \(source) (\(LocalItem.thumbnailSkipReason))"
      default: return "\(action) \(source)"
      }
    }

    var json: String {
      var fields: [(String, JSONValue)] = [
        ("source", .string(source)), ("dryRun", .bool(true)), ("action", .string(action)),
      ]
      if let path { fields.append(("path", .string(path))) }
      if let size { fields += [("width", .int(size.0)), ("height", .int(size.1))] }
      return jsonLine(fields)
    }
  }

  /// Runs the dry run.
  /// - Parameter invocation: The command line (`fetch` with `--dry-run`).
  /// - Returns: The exit code: 0, or a real run's code for the items that cannot even be planned.
  /// - Throws: ``UsageError`` as a real run.
  static func run(_ invocation: Invocation) throws(UsageError) -> ExitCode {
    let settings = try FetchSettings(invocation, environment: ProcessEnvironment.variable)
    let directory = settings.cacheDirectory ?? DiskCache.defaultDirectory()
    var failures: [ItemOutcome.FailureKind] = []
    var items = 0
    func emit(_ step: Step) {
      if !invocation.output.quiet { Console.out(invocation.output.json ? step.json : step.line) }
    }
    let keepsNoOriginal = settings.thumbnail?.keepsCachedOriginal == false
    if let className = settings.className {
      items += 1
      let source = "class \(className) (column \(settings.column ?? ""))"
      emit(Step(source: source, action: "query"))
      if keepsNoOriginal { emit(Step(source: source, action: "removeOriginal")) }
    }
    for source in settings.sources where settings.shard?.contains(source.shardKey) ?? true {
      items += 1
      switch source {
      case .unreadableFolder(_, let message):
        Console.error(message)
        failures.append(.fileSystem)
      case .local(let path):
        if let failure = plan(path, settings: settings, emit: emit) { failures.append(failure) }
      case .url(let url):
        let entry = directory + "/" + CacheKey(url: url.absoluteString).fileName
        if FileStatus.of(entry) == nil {
          // With --thumbnails-only, the thumbnails an earlier run left stand for the removed original.
          if keepsNoOriginal, let options = settings.thumbnail,
            let kept = Thumbnailer(options: options).existingThumbnails(
              ofRemovedSourceAt: entry, sizes: settings.thumbnailSizes)
          {
            for thumbnail in kept {
              emit(
                Step(
                  source: source.label, action: "upToDate", path: thumbnail.path,
                  size: (thumbnail.width, thumbnail.height)))
            }
            continue
          }
          emit(Step(source: source.label, action: "download", path: entry))
        } else {
          emit(Step(source: source.label, action: "cached", path: entry))
          if let failure = plan(entry, settings: settings, emit: emit, validated: true) {
            failures.append(failure)
            continue
          }
        }
        if keepsNoOriginal { emit(Step(source: source.label, action: "removeOriginal", path: entry)) }
      case .object, .objectFile:
        emit(Step(source: source.label, action: "query"))
        if keepsNoOriginal { emit(Step(source: source.label, action: "removeOriginal")) }
      }
    }
    return ExitCode.of(failures: failures, items: items)
  }

  /// The steps of a file on this machine: its thumbnails (written or up to date), or its validation.
  /// - Returns: The failure's kind when its header cannot be read.
  static func plan(_ path: String, settings: FetchSettings, emit: (Step) -> Void, validated: Bool = false)
    -> ItemOutcome.FailureKind?
  {
    guard let options = settings.thumbnail else {
      if !validated { emit(Step(source: path, action: "validate")) }
      return nil
    }
    if !validated && LocalItem.isImgfetchThumbnail(path, template: options.nameTemplate) {
      emit(Step(source: path, action: "skip"))
      return nil
    }
    for size in settings.thumbnailSizes {
      do throws(ThumbnailError) {
        let planned = try Thumbnailer(options: options.sized(size)).plannedThumbnail(forFileAt: path)
        emit(
          Step(
            source: path, action: planned.reused ? "upToDate" : "write", path: planned.path,
            size: (planned.width, planned.height)))
      } catch {
        let (kind, message) = LocalItem.describe(error)
        Console.error(message)
        return kind
      }
    }
    return nil
  }
}
