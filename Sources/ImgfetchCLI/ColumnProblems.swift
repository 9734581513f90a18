import ParseFetch
import SystemFiles

/// The objects of a class walk whose column holds no file, gathered so that a misspelt `--column`
/// (missing from every object) or a column of strings is reported once, with the count and the
/// first few objects, instead of as one identical line per object. Each object's `--json` object
/// still carries its own `error`. Safe to use from any task.
final class ColumnProblems: Sendable {
  /// One kind of problem: the column is missing, or holds something else than a file.
  private struct Problem: Hashable {
    var column: String
    /// nil: the column is missing; else what it holds (`a string`, `null`, …).
    var found: String?
  }

  private struct Tally {
    var order: [Problem] = []
    var objects: [Problem: (count: Int, first: [String])] = [:]
  }

  /// How many objects a line names before "…".
  static let namedObjects = 3
  private let tally = Locked(Tally())

  /// Records the object when its error is a column problem.
  /// - Parameter error: Why the object's file could not be had.
  /// - Returns: Whether the error was a column problem (and is left to ``lines(className:objects:)``).
  func record(_ error: ParseError) -> Bool {
    let problem: Problem
    let object: ParseObjectReference
    switch error {
    case .missingColumn(let reference, let column): (problem, object) = (Problem(column: column, found: nil), reference)
    case .notAFile(let reference, let column, let found):
      (problem, object) = (Problem(column: column, found: found), reference)
    default: return false
    }
    tally.withLock { tally in
      var entry = tally.objects[problem] ?? (0, [])
      if entry.count == 0 { tally.order.append(problem) }
      entry.count += 1
      if entry.first.count < Self.namedObjects { entry.first.append(object.objectID) }
      tally.objects[problem] = entry
    }
    return true
  }

  /// One line per kind of problem, in the order they were first met: `Photo: column Foo is
  /// missing in 12 of 12 objects (a1, b2, c3, …); check the column name, …`.
  /// - Parameters:
  ///   - className: The class walked.
  ///   - objects: How many objects the walk went through.
  /// - Returns: The lines, without the `imgfetch: ` prefix.
  func lines(className: String, objects: Int) -> [String] {
    tally.withLock { tally in
      tally.order.map { problem in
        let (count, first) = tally.objects[problem]!
        let named = first.joined(separator: ", ") + (count > first.count ? ", …" : "")
        let share = "\(count) of \(counted(objects, "object"))"
        guard let found = problem.found else {
          return "\(className): column \(problem.column) is missing in \(share) (\(named)); check the column "
            + "name, or add {\"\(problem.column)\":{\"$exists\":true}} to --where to skip objects without it"
        }
        return "\(className): column \(problem.column) is not a file in \(share) (found \(found): \(named))"
      }
    }
  }
}
