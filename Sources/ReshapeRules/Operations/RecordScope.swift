import ReshapeJSON

// Record operations (rename, drop, keep, default, set, coerce) work on one object, or on
// every element of an array of objects, so `rename` after `keyed-to-array` needs no `each`.

enum RecordScope {
    /// Calls `body` on `value` when it is an object, or on each element when it is an array.
    /// Objects are moved out of their enum payload first (`takeObject`), so their storage
    /// stays uniquely referenced and is mutated in place.
    @inline(__always)
    static func forEachRecord(
        in value: inout JSON, operation: String,
        _ body: (inout JSONObject) throws(PipelineError) -> Void
    ) throws(PipelineError) {
        if var record = value.takeObject() {
            try body(&record)
            value = .object(record)
        } else if var elements = value.takeArray() {
            for i in elements.indices {
                guard var record = elements[i].takeObject() else {
                    throw PipelineError(
                        code: "not-an-object",
                        message: "\(operation) expects records (objects), found \(elements[i].kindName)",
                        pointer: JSONPointer.appending(index: i, to: ""))
                }
                try body(&record)
                elements[i] = .object(record)
            }
            value = .array(elements)
        } else {
            throw PipelineError(
                code: "not-an-object",
                message: "\(operation) expects a record or an array of records, found \(value.kindName)",
                pointer: "")
        }
    }
}
