/// An HTTP date (RFC 9110, section 5.6.7) read without Foundation's formatters: the preferred
/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), and the two obsolete forms a recipient must also
/// accept, RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
enum HTTPDate {
  /// Seconds since 1970-01-01 UTC of a date in any of the three forms, or nil for anything else
  /// (including a day or time out of range).
  /// - Parameter text: The field's value.
  /// - Returns: The time, in whole seconds.
  static func secondsSince1970(_ text: String) -> Int? {
    let words = text.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    var day: Int?
    var month: Int?
    var year: Int?
    var time: (Int, Int, Int)?
    switch words.count {
    case 6 where words[5] == "GMT":  // IMF-fixdate: weekday, day month year time GMT
      guard words[3].count == 4 else { return nil }
      (day, month, year, time) = (Int(words[1]), monthNumber(words[2]), Int(words[3]), clock(words[4]))
    case 4 where words[3] == "GMT":  // RFC 850: weekday, day-month-year time GMT (two-digit year)
      let parts = words[1].split(separator: "-").map(String.init)
      guard parts.count == 3, parts[2].count == 2, let two = Int(parts[2]) else { return nil }
      (day, month, year, time) = (
        Int(parts[0]), monthNumber(parts[1]), two < 70 ? 2000 + two : 1900 + two, clock(words[2])
      )
    case 5:  // asctime: weekday month day time year
      guard words[4].count == 4 else { return nil }
      (day, month, year, time) = (Int(words[2]), monthNumber(words[1]), Int(words[4]), clock(words[3]))
    default:
      return nil
    }
    guard let day, let month, let year, let (hour, minute, second) = time, (1...31).contains(day),
      (1...9999).contains(year)
    else { return nil }
    return daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
  }

  private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

  private static func monthNumber(_ name: String) -> Int? {
    months.firstIndex(of: name.lowercased()).map { $0 + 1 }
  }

  /// `HH:MM:SS`, each part two digits and in range (a leap second's 60 allowed).
  private static func clock(_ text: String) -> (Int, Int, Int)? {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }),
      let hour = Int(parts[0]), let minute = Int(parts[1]), let second = Int(parts[2]),
      (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
    else { return nil }
    return (hour, minute, second)
  }

  /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
  /// days-from-civil algorithm).
  static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }
}
