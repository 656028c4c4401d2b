import FuzzSupport
import ReshapeFuzzTargets

// The properties are in the main package (Sources/ReshapeFuzzTargets/AuthFuzzTarget.swift),
// where they may use its package-visible API; this is libFuzzer's side of them.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { fuzzAuth(data, size) }

runFuzzer(testOneInput)
