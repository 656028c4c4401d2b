import ReshapeJSON

/// `set: { field: value }` — sets fields of a record (or of every record in an array),
/// replacing present values in place and appending new ones. A string value may hold
/// `{param}` placeholders naming captures of the route's request path (`{{`/`}}` for
/// literal braces); other values are used as written.
package struct SetOperation: TransformOperation {
    enum FieldValue: Sendable {
        case constant(JSON)
        case template(StringTemplate)
    }
    let fields: [(name: String, value: FieldValue)]

    /// Each field set, with its value when it is a constant; nil for a template (a string
    /// filled from path captures at run time). For readers outside the module (OpenAPI export).
    package var assignments: [(name: String, constant: JSON?)] {
        fields.map { field in
            if case .constant(let value) = field.value { return (field.name, value) }
            return (field.name, nil)
        }
    }

    static func compile(_ argument: OperationArgument, _ context: OperationCompileContext) throws(OperationConfigError)
        -> any TransformOperation
    {
        let object = try argument.object()
        guard !object.isEmpty else { throw argument.error("expected at least one 'field: value' pair") }
        var fields: [(name: String, value: FieldValue)] = []
        for member in object.members {
            guard case .string(let text) = member.value else {
                fields.append((member.key, .constant(member.value)))
                continue
            }
            switch StringTemplate.parse(text, parameterNames: context.parameterNames, authClaims: context.authClaims) {
            case .failure(let failure):
                throw argument.error(failure.message, at: member.key)
            case .success(let template):
                context.claimsUsed?.note(template.parameterNames)
                fields.append(
                    (member.key, template.isLiteral ? .constant(.string(template.render([:]))) : .template(template)))
            }
        }
        return SetOperation(fields: fields)
    }

    package func apply(to value: inout JSON, context: inout TransformContext) throws(PipelineError) {
        // Render templates once per run, not once per record.
        var rendered: [JSONMember] = []
        rendered.reserveCapacity(fields.count)
        for field in fields {
            switch field.value {
            case .constant(let constant): rendered.append(JSONMember(key: field.name, value: constant))
            case .template(let template):
                rendered.append(JSONMember(key: field.name, value: .string(template.render(context.parameters))))
            }
        }
        try RecordScope.forEachRecord(in: &value, operation: "set") { record in
            for member in rendered { record[member.key] = member.value }
        }
    }
}

extension SetOperation {
    /// On an array, each record is set alone (templates read only the path captures).
    package var isElementLocal: Bool { true }
}
