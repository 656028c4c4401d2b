/// One chunk of a live stream's answer: a subscriber's own bytes (its `id:` line, a comment, its
/// `error` event), then bytes shared with the other subscribers (an event rendered once for
/// all of them). The shared bytes are written from the array they were rendered into, held by
/// each write until libuv is done with it, never copied per subscriber.
struct StreamChunk {
    let own: [UInt8]
    let shared: [UInt8]

    init(own: [UInt8], shared: [UInt8] = []) {
        self.own = own
        self.shared = shared
    }

    var count: Int { own.count + shared.count }
}
