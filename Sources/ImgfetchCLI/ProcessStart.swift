import CProcessSettings
import ImageCodecs
import SystemFiles

extension Imgfetch {
  /// The start of the executable's `main`: sets the process up as a command-line run needs it and
  /// parses the arguments, exiting with ``ExitCode/usage`` (after printing the one-line error) when
  /// they are wrong.
  ///
  /// The settings are the whole process's, so only an executable applies them (never a library):
  /// - a closed standard input, output or error keeps its number
  ///   (``SystemFiles/StandardStream/reserveClosedStreams()``);
  /// - glibc's malloc arenas capped at two, so that an address-space limit (`ulimit -v`) measures
  ///   memory rather than each allocating thread's 64 MiB arena reservation;
  /// - ``PixelBufferPool/shared`` keeps up to 256 MiB of large pixel buffers, so one image after
  ///   another reuses them instead of faulting fresh pages in (a library's default is 0 bytes);
  /// - `SIGPIPE` ignored: a closed pipe (`imgfetch decode x.png | head -c 10`) is an ordinary
  ///   write error;
  /// - SIGINT and SIGTERM unblocked (a parent may have started us with them blocked, as Foundation's
  ///   `Process` does from some threads), before any thread starts, so every thread inherits it.
  /// - Parameter arguments: The arguments after the program name.
  /// - Returns: The parsed command line.
  public static func startProcess(arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Invocation {
    StandardStream.reserveClosedStreams()
    _ = process_limit_malloc_arenas(2)
    PixelBufferPool.shared.maximumBytes = 256 << 20
    ProcessEnvironment.ignoreBrokenPipes()
    InterruptHandler.unblock()
    guard let invocation = parse(arguments) else { ProcessEnvironment.exit(ExitCode.usage.rawValue) }
    return invocation
  }
}
