enum PlaceholderPushSealCLI {}
