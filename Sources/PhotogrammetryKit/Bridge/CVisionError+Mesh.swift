import CVision
import CVisionMesh

/// Throws ``CVisionError`` unless `status` is `CVIS_OK`, with the mesh core's message.
///
/// The mesh core (CVisionMesh) keeps its own thread-local message, so its calls are checked
/// here rather than by ``check(_:)``.
@inline(__always)
func checkMesh(_ status: cvis_status) throws {
    guard status != CVIS_OK else { return }
    let message = String(cString: cvis_mesh_last_error_message())
    let code = CVisionError.Code(rawValue: Int32(bitPattern: status.rawValue)) ?? .internalError
    throw CVisionError(code: code, message: message)
}
