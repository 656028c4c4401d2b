print("reshape-demo-upstream: not built yet")
