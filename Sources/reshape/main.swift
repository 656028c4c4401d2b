print("reshape: not built yet")
