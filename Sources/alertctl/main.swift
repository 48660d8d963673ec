print("alertctl: not yet")
