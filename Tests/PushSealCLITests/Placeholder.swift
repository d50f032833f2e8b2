enum PlaceholderPushSealCLITests {}
