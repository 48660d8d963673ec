print("alertd: not yet")
