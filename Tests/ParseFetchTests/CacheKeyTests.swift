import Foundation
import Testing

@testable import ParseFetch

@Suite(.timeLimit(.minutes(30))) struct CacheKeyTests {
  @Test func usesAValidParseNameAsItIs() {
    let name = "d41d8cd98f00b204e9800998ecf8427e_photo 1@2x~v.jpg"
    #expect(CacheKey(parseFileName: name).fileName == name)
  }

  @Test(arguments: [
    "../../etc/passwd", "a/b.jpg", "..", ".", ".hidden.jpg", "x\u{0}y.jpg", "tab\tname.png",
    "line\nbreak.jpg", String(repeating: "a", count: 129), "photo.jpg.part", "x.thumb-128.jpg",
    "-dash.jpg", "ünïcödé.jpg", "Photo.JPG", "",
  ])
  func hashesEveryOtherName(name: String) {
    let key = CacheKey(parseFileName: name).fileName
    #expect(key != name)
    #expect(key.contains("+"))
    #expect(!key.contains("/") && !key.hasPrefix(".") && key.utf8.count <= 100)
    #expect(key.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 0x20 })
  }

  @Test(arguments: [
    "X.TMP", "y.Part", "z.tmp", "photo.jpg.part", "x.thumb-128.jpg", "a.jpg.thumb-64x32-cover.png",
    ".a.jpg.tmp-12-ab", "CACHEDIR.TAG", "pic.tmpl", "x.tmp-1",
  ])
  func everyKeyIsAnEntryToTheClassifier(name: String) {
    #expect(CacheFile(fileName: CacheKey(parseFileName: name).fileName) == .entry)
    let url = CacheKey(url: "https://cdn.example/files/\(name)").fileName
    #expect(CacheFile(fileName: url) == .entry, "\(url)")
  }

  @Test func aURLEndingInTmplKeepsItsExtensionAndIsAnEntry() {
    let key = CacheKey(url: "https://cdn.example/pic.tmpl").fileName
    #expect(key.hasPrefix("pic+") && key.hasSuffix(".tmpl"))
    #expect(CacheFile(fileName: key) == .entry)
  }

  @Test(arguments: ["pic.tmpl", "x.tmp-1", "z.tmp"])
  func rawNamesThatOnlyResembleTemporariesAreUsedAsTheyAre(name: String) {
    #expect(CacheKey(parseFileName: name).fileName == name)
  }

  @Test func keepsCaseDifferentNamesApartEvenOnCaseInsensitiveDisks() {
    let keys = ["a_Photo.jpg", "a_photo.JPG", "a_PHOTO.jpg", "a_photo.jpg"].map {
      CacheKey(parseFileName: $0).fileName.lowercased()
    }
    #expect(Set(keys).count == 4)
  }

  @Test func keepsUnicodeNormalisationsApart() {
    let composed = CacheKey(parseFileName: "caf\u{E9}.jpg")
    let decomposed = CacheKey(parseFileName: "cafe\u{301}.jpg")
    #expect(composed != decomposed)
  }

  @Test func cannotBeForgedWithARawName() {
    // A hashed key contains "+", which no raw name may: an attacker cannot name a file so that
    // it lands on another name's hashed entry.
    let hashed = CacheKey(parseFileName: "Photo.jpg").fileName
    #expect(CacheKey(parseFileName: hashed).fileName != hashed)
  }

  @Test func namesURLsByTheirLastComponentAndAHash() {
    let a = CacheKey(url: "https://cdn.example/a/photo.jpg?sig=1")
    let b = CacheKey(url: "https://cdn.example/b/photo.jpg?sig=1")
    #expect(a.fileName.hasPrefix("photo+") && a.fileName.hasSuffix(".jpg"))
    #expect(a != b)
  }

  @Test func hashesWithSHA256() {
    #expect(
      SHA256.hex([UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(
      SHA256.hex(Array("abc".utf8))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    #expect(SHA256.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }
}
