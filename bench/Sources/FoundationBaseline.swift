// The yardstick: Foundation's JSONSerialization on the same bytes. Used only here, never
// on the request path (it is slow and loses member order).
import Foundation

func foundationRoundTrip(_ data: Data) throws -> Data {
    let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    return try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed])
}
