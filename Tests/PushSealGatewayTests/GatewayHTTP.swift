import Foundation
import PushSealCore
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The tests' HTTP client for the gateway's API: one request, waited for.
enum GatewayHTTP {
    /// An answer of the API.
    struct Answer {
        let status: Int
        let headers: [String: String]
        let body: Data

        /// The body as a JSON object.
        var json: JSONObject? { try? JSONParser.parse(Array(body)).objectValue }
        /// The error's code, for an error answer.
        var errorCode: String? { json?["error"]?.objectValue?["code"]?.stringValue }
        /// The error's path, for an error answer.
        var errorPath: String? { json?["error"]?.objectValue?["path"]?.stringValue }
    }

    /// Sends `method url` with `body` (as `contentType`) and a bearer `token`; the answer, or nil
    /// when none came (the gateway is not listening, or was killed).
    static func send(
        _ method: String, _ url: String, body: Data? = nil, token: String? = nil,
        contentType: String? = "application/json", headers: [String: String] = [:]
    ) throws -> Answer? {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.timeoutInterval = 10
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            if let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        }
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var answer: Answer?
        URLSession.shared.dataTask(with: request) { data, response, _ in
            if let response = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (name, value) in response.allHeaderFields {
                    headers["\(name)".lowercased()] = "\(value)"
                }
                answer = Answer(status: response.statusCode, headers: headers, body: data ?? Data())
            }
            done.signal()
        }.resume()
        done.wait()
        return answer
    }
}
