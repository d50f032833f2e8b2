import PushSealGateway

#if canImport(Glibc)
    import Glibc
#endif

exit(GatewayCommand.run(Array(CommandLine.arguments.dropFirst())))
