import CMicroHTTPD
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

/// The C entry points libmicrohttpd calls. Each recovers the core (`cls`) and
/// the request context (`con_cls`) and hands over to typed Swift.
extension MHDServerCore {
    /// Runs first for every request, with the raw target: makes the context
    /// that libmicrohttpd then carries as `con_cls` until `requestCompleted`.
    package static let uriLog: alertd_mhd_uri_log_callback = { _, uri, connection in
        guard let connection else { return nil }
        let context = RequestContext(target: uri.map { String(cString: $0) } ?? "/", targetLength: uri.map { strlen($0) } ?? 1,
                                     connection: connection)
        return Unmanaged.passRetained(context).toOpaque()
    }

    package static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, conCls in
        guard let cls, let connection, let method, let uploadSize, let context = conCls?.pointee else { return .NO }
        let core = Unmanaged<MHDServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.handle(
            Unmanaged<RequestContext>.fromOpaque(context).takeUnretainedValue(), connection: connection,
            url: url, method: method, version: version, uploadData: uploadData, uploadSize: uploadSize)
    }

    package static let requestCompleted: MHD_RequestCompletedCallback = { cls, _, conCls, _ in
        guard let conCls, let pointer = conCls.pointee else { return }
        conCls.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
        context.close()
        if let cls {
            Unmanaged<MHDServerCore>.fromOpaque(cls).takeUnretainedValue().forget(context)
        }
    }
}
