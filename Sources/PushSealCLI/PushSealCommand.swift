/// The `pushseal` program: parses the command line, runs the command, maps errors to the exit
/// statuses of cli-v1.md. The executable target only calls ``main(_:)``.
public enum PushSealCommand {
    /// Runs `pushseal` with `arguments` (without the program name) and returns the exit status.
    public static func main(_ arguments: [String]) -> Int32 {
        let console = Console()
        let status: ExitStatus
        do {
            status = try run(Invocation.parse(arguments), console: console)
            try console.output.commit()
        } catch {
            console.output.flush()
            console.errors.writeLine("pushseal: \(error.message)")
            return ExitStatus.usage.code
        }
        return status.code
    }

    private static func run(_ invocation: Invocation, console: Console) throws(UsageError) -> ExitStatus {
        switch invocation {
        case .help:
            console.output.writeLine(HelpText.usage)
            return .success
        case .version:
            console.output.writeLine(HelpText.version)
            return .success
        case .keysGenerate(let suite, let kid, let output):
            return try KeysCommand.generate(suite: suite, kid: kid, output: output, console: console)
        case .keysPublic(let input, let applicationServerKey):
            return try KeysCommand.publicKey(
                input: input, applicationServerKey: applicationServerKey, console: console)
        case .keysInit(let store):
            return try KeysCommand.initialize(store: store, console: console)
        case .keysImport(let store, let sender, let input):
            return try KeysCommand.importKey(store: store, sender: sender, input: input, console: console)
        case .keysRotate(let store, let suite, let repeats):
            return try KeysCommand.rotate(store: store, suite: suite, repeats: repeats, console: console)
        case .keysRetire(let store, let kid, let role):
            return try KeysCommand.retire(store: store, kid: kid, role: role, console: console)
        case .keysPolicy(let store, let change):
            return try KeysCommand.policy(store: store, change: change, console: console)
        case .keysList(let store):
            return try KeysCommand.list(store: store, console: console)
        case .keysWebPush(let store):
            return try KeysCommand.webPush(store: store, console: console)
        case .encrypt(let arguments):
            return try EncryptCommand.run(arguments, console: console)
        case .decrypt(let arguments):
            return try DecryptCommand.run(arguments, console: console)
        case .inspect(let input):
            return try InspectCommand.run(input: input, console: console)
        case .send(let arguments):
            return try SendCommand.run(arguments, console: console)
        case .mediaSeal(let file, let output, let url):
            return try MediaCommand.seal(file: file, output: output, url: url, console: console)
        case .mediaOpen(let object, let descriptor, let output):
            return try MediaCommand.open(object: object, descriptorFile: descriptor, output: output, console: console)
        case .webPushSubscribe(let endpoint, let output):
            return try WebPushCommand.subscribe(endpoint: endpoint, output: output, console: console)
        case .webPushSeal(let arguments):
            return try WebPushCommand.seal(arguments, console: console)
        case .webPushSend(let arguments):
            return try WebPushSendCommand.run(arguments, console: console)
        case .webPushOpen(let receiver, let jsonLines, let input):
            return try WebPushCommand.open(receiverFile: receiver, jsonLines: jsonLines, input: input, console: console)
        }
    }
}
