import ReshapeRules

/// What the status page at `/_reshape/` shows; the server gathers it, `StatusPage` renders it.
package struct StatusReport: Sendable {
    package struct RouteRow: Sendable {
        package var name: String
        /// The route's request template, like `GET /users/{id}`.
        package var request: String
        package var figures: MetricsWindow.RouteFigures?
        /// The share of this route's answers served from the answer cache; nil without `cache:`.
        package var cacheHitRatio: Double?
        /// The last few elements validation dropped, newest first.
        package var recentDrops: [DroppedElement]

        package init(
            name: String, request: String, figures: MetricsWindow.RouteFigures?, cacheHitRatio: Double?,
            recentDrops: [DroppedElement]
        ) {
            self.name = name
            self.request = request
            self.figures = figures
            self.cacheHitRatio = cacheHitRatio
            self.recentDrops = recentDrops
        }
    }

    package struct UpstreamRow: Sendable {
        package var name: String
        /// `closed`, `open` or `half-open`, as the workers' circuit breakers say.
        package var circuit: String
        package var retries: Int

        package init(name: String, circuit: String, retries: Int) {
            self.name = name
            self.circuit = circuit
            self.retries = retries
        }
    }

    package var generatedAt: String
    package var windowSeconds: Int
    package var rulesDigest: String
    /// The last reload, in words (`ok at ...`, `refused at ...: 2 problems`), or nil: none yet.
    package var lastReload: String?
    package var routes: [RouteRow]
    package var upstreams: [UpstreamRow]

    package init(
        generatedAt: String, windowSeconds: Int, rulesDigest: String, lastReload: String?,
        routes: [RouteRow], upstreams: [UpstreamRow]
    ) {
        self.generatedAt = generatedAt
        self.windowSeconds = windowSeconds
        self.rulesDigest = rulesDigest
        self.lastReload = lastReload
        self.routes = routes
        self.upstreams = upstreams
    }
}

/// The status page: plain server-rendered HTML, no scripts and no external assets, every value
/// escaped. It reloads itself every few seconds.
package enum StatusPage {
    package static func render(_ report: StatusReport) -> [UInt8] {
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="5">
            <title>Reshape status</title>
            <style>
            body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1b1f23;background:#fff}
            h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
            table{border-collapse:collapse;min-width:60%}th,td{padding:4px 10px;text-align:left;border-bottom:1px solid #ddd}
            th{background:#f4f5f7}td.n{text-align:right;font-variant-numeric:tabular-nums}
            .open{color:#b00020;font-weight:600}.half-open{color:#b36b00;font-weight:600}.closed{color:#1a7f37}
            .muted{color:#666}code{font-size:13px}ul{margin:0;padding-left:18px}
            </style></head><body>
            <h1>Reshape</h1>
            """
        html += "<p class=\"muted\">Rules <code>\(escape(report.rulesDigest))</code>"
        html += " · last reload: \(escape(report.lastReload ?? "none since start"))"
        html += " · figures over the last \(report.windowSeconds) s · \(escape(report.generatedAt))</p>\n"
        html += "<h2>Routes</h2>\n<table><thead><tr><th>route</th><th>request</th><th>requests/s</th>"
        html += "<th>p50</th><th>p99</th><th>5xx/s</th><th>dropped</th><th>cache hits</th></tr></thead><tbody>\n"
        for route in report.routes {
            let figures = route.figures
            html += "<tr><td>\(escape(route.name))</td><td><code>\(escape(route.request))</code></td>"
            html += "<td class=\"n\">\(rate(figures?.requestsPerSecond))</td>"
            html += "<td class=\"n\">\(duration(figures?.p50Seconds))</td>"
            html += "<td class=\"n\">\(duration(figures?.p99Seconds))</td>"
            html += "<td class=\"n\">\(rate(figures?.errorsPerSecond))</td>"
            html += "<td class=\"n\">\(figures.map { String($0.dropped) } ?? "0")</td>"
            html +=
                "<td class=\"n\">\(route.cacheHitRatio.map(percent) ?? "<span class=\"muted\">no cache</span>")</td></tr>\n"
        }
        html += "</tbody></table>\n"
        let drops = report.routes.filter { !$0.recentDrops.isEmpty }
        html += "<h2>Recently dropped elements</h2>\n"
        if drops.isEmpty {
            html += "<p class=\"muted\">None.</p>\n"
        } else {
            html += "<table><thead><tr><th>route</th><th>pointer</th><th>type</th><th>reason</th></tr></thead><tbody>\n"
            for route in drops {
                for drop in route.recentDrops {
                    html += "<tr><td>\(escape(route.name))</td><td><code>\(escape(drop.pointer))</code></td>"
                    html += "<td>\(escape(drop.type))</td><td>\(escape(drop.reason))</td></tr>\n"
                }
            }
            html += "</tbody></table>\n"
        }
        html +=
            "<h2>Upstreams</h2>\n<table><thead><tr><th>upstream</th><th>circuit</th><th>retries</th></tr></thead><tbody>\n"
        for upstream in report.upstreams {
            let state = escape(upstream.circuit)
            html += "<tr><td>\(escape(upstream.name))</td><td class=\"\(state)\">\(state)</td>"
            html += "<td class=\"n\">\(upstream.retries)</td></tr>\n"
        }
        html += "</tbody></table>\n</body></html>\n"
        return Array(html.utf8)
    }

    /// Text as HTML character data or a quoted attribute value. Byte by byte, not by
    /// `Character`: a `<` followed by a combining mark is one Character that is not `<`.
    static func escape(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): out += Array("&amp;".utf8)
            case UInt8(ascii: "<"): out += Array("&lt;".utf8)
            case UInt8(ascii: ">"): out += Array("&gt;".utf8)
            case UInt8(ascii: "\""): out += Array("&quot;".utf8)
            case UInt8(ascii: "'"): out += Array("&#39;".utf8)
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func rate(_ value: Double?) -> String {
        guard let value else { return "0" }
        return fixed(value, digits: value < 10 ? 2 : 1)
    }

    private static func duration(_ seconds: Double?) -> String {
        guard let seconds else { return "<span class=\"muted\">–</span>" }
        return seconds < 1 ? fixed(seconds * 1000, digits: 1) + " ms" : fixed(seconds, digits: 2) + " s"
    }

    private static func percent(_ ratio: Double) -> String { fixed(ratio * 100, digits: 1) + " %" }

    /// `value` with `digits` decimals, without Foundation's formatter.
    static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value * scale).rounded()
        guard scaled.isFinite, abs(scaled) < 1e15 else { return String(value) }
        let whole = Int(scaled)
        let integer = String(abs(whole) / Int(scale))
        var fraction = String(abs(whole) % Int(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return (whole < 0 ? "-" : "") + integer + (digits > 0 ? "." + fraction : "")
    }
}
