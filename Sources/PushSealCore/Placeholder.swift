enum PlaceholderPushSealCore {}
