import Foundation
import ReshapeCompression
import XCTest

/// Every coding's output decompresses, with the reference tools (gzip, brotli, zstd from
/// Debian), to the bytes that went in.
final class CompressorTests: XCTestCase {
    /// Normalized-JSON-like text: repetitive members, non-ASCII, escapes.
    private func sample(records: Int) -> [UInt8] {
        var text = #"{"objects":["#
        for index in 0..<records {
            if index > 0 { text += "," }
            text += #"{"objectId":"-Nx\#(index)","name":"Łódź \#(index % 17)","email":"u\#(index)@example.com","#
            text += #""age":\#(index % 90),"tags":["a","b\"q"],"bio":"line\nnext é"}"#
        }
        return Array((text + "]}").utf8)
    }

    private func decompress(_ bytes: [UInt8], with tool: String) throws -> [UInt8] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("reshape-\(UUID().uuidString).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool, "-d", "-c", file.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(tool) -d refused the output")
        return [UInt8](data)
    }

    func testEveryCodingRoundTripsThroughTheReferenceTool() throws {
        let compressor = Compressor()
        let tools: [ContentCoding: String] = [.gzip: "gzip", .br: "brotli", .zstd: "zstd"]
        for records in [20, 2_000] {
            let input = sample(records: records)
            for coding in ContentCoding.serverPreference {
                let compressed = try XCTUnwrap(
                    compressor.compress(input, as: coding), "\(coding) of \(input.count) bytes")
                XCTAssertLessThan(compressed.count * 3, input.count, "\(coding) should compress JSON several times")
                XCTAssertEqual(try decompress(compressed, with: try XCTUnwrap(tools[coding])), input, "\(coding)")
            }
        }
    }

    func testIdentityAndIncompressibleInputGiveNil() {
        let compressor = Compressor()
        XCTAssertNil(compressor.compress(sample(records: 5), as: .identity))
        // Output no smaller than the input is not worth a Content-Encoding.
        XCTAssertNil(compressor.compress([0x7B], as: .gzip))
        var random = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        for coding in ContentCoding.serverPreference {
            XCTAssertNil(compressor.compress(noise, as: coding), "\(coding)")
        }
    }

    func testHeaderValuesAndEntityTagSuffixes() {
        XCTAssertNil(ContentCoding.identity.headerValue)
        XCTAssertEqual(ContentCoding.gzip.headerValue, "gzip")
        XCTAssertEqual(ContentCoding.br.entityTagSuffix, "-br")
        XCTAssertEqual(ContentCoding.identity.entityTagSuffix, "")
    }
}
