import PushSealCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(PushSealCommand.main(Array(CommandLine.arguments.dropFirst())))
