import ArgumentParser

/// Every verb. Adding one is a file and a line here.
enum CommandList {
    static let all: [ParsableCommand.Type] = [
        CheckCommand.self,
        TestCommand.self,
        ApplyCommand.self,
        ReplayCommand.self,
        InferCommand.self,
        ExplainCommand.self,
        ValidateCommand.self,
        FormatCommand.self,
        ServeCommand.self,
        OpenAPICommand.self,
    ]
}
