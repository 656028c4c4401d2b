import CLibFuzzer

#if canImport(Glibc)
    import Glibc
#endif

/// The signature of `LLVMFuzzerTestOneInput`. Each target defines that symbol with `@_cdecl`
/// (libFuzzer's archive is linked whole and refers to it) and hands the same function here.
public typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

/// Runs libFuzzer with the process's arguments (`-max_total_time=`, corpus directories, or
/// files to replay); never returns.
public func runFuzzer(_ callback: FuzzCallback) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, callback))
}
