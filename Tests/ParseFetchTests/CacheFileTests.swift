import Testing

@testable import ParseFetch

/// The one classifier of cache file names (issue 13.3, 11.5).
@Suite(.timeLimit(.minutes(30))) struct CacheFileTests {
  @Test(arguments: [
    ("photo.jpg", CacheFile.entry),
    ("pic+0123456789abcdef0123456789abcdef.tmpl", .entry),
    ("file+0123456789abcdef0123456789abcdef", .entry),
    ("photo.jpg.part", .partial(entry: "photo.jpg")),
    ("photo.jpg.thumb-256.jpg", .thumbnail(entry: "photo.jpg")),
    ("photo.png.thumb-320x200.png", .thumbnail(entry: "photo.png")),
    ("photo.jpg.thumb-320x200-cover.jpg", .thumbnail(entry: "photo.jpg")),
    ("photo.jpg.thumb-256.webp", .thumbnail(entry: "photo.jpg")),
    ("photo.jpg.thumb-256x.jpg", .thumbnail(entry: "photo.jpg")),  // issue 32: a width alone
    ("photo.jpg.thumb-x256.png", .thumbnail(entry: "photo.jpg")),  // a height alone
    ("photo.jpg.thumb-x.jpg", .entry),
    (".photo.jpg.thumb-64.jpg.tmp-4242-1x2y3z", .temporary),
    (".photo.jpg.tmp-1-a", .temporary),
    ("CACHEDIR.TAG", .tag),
    ("notes.txt", .entry),
    ("Notes.txt", .foreign),
    ("IMG_0001.JPG", .foreign),
    (".DS_Store", .foreign),
    (".hidden", .foreign),
    ("x.tmp", .entry),
    ("x.tmp-1", .entry),
    (".x.tmp-", .foreign),
    (".tmp-1-a", .foreign),
    ("photo.jpg.thumb-.jpg", .entry),
    ("photo.jpg.thumb-256.gif", .entry),
    ("Photo.JPG.part", .foreign),
    ("photo.jpg.thumb-64.jpg.part", .foreign),
    ("a b.jpg", .entry),
    // Issue 30.9: only names CacheKey gives (raw Parse names have no `+`; hashed ones are
    // `<slug>+<32 hex>[.<ext>]`) are entries.
    ("a+b.jpg", .foreign),
    ("pic+0123456789abcdef0123456789abcdef.tmpl.bak", .foreign),
    ("pic+0123456789ABCDEF0123456789abcdef.jpg", .foreign),
    ("pic+0123456789abcdef.jpg", .foreign),
    ("+0123456789abcdef0123456789abcdef", .foreign),
    ("a+b+0123456789abcdef0123456789abcdef", .foreign),
  ])
  func classifiesNames(name: String, kind: CacheFile) {
    #expect(CacheFile(fileName: name) == kind, "\(name)")
  }

  @Test func locksLiveInTheirOwnDirectory() {
    #expect(CacheFile(fileName: "photo.jpg.lock", inLocks: true) == .lock)
    #expect(CacheFile(fileName: "Photo.lock", inLocks: true) == .foreign)
  }

  @Test func onlyPartialAndTemporaryFilesAreTransient() {
    #expect(CacheFile.partial(entry: "a").isTransient && CacheFile.temporary.isTransient)
    #expect(!CacheFile.entry.isTransient && !CacheFile.thumbnail(entry: "a").isTransient)
  }
}
