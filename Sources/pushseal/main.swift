print("pushseal")
