import CMicroHTTPD
import FoundationEssentials
import AlertdPOSIX

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
        if let uri { endQueryForLibrary(UnsafeMutablePointer(mutating: uri)) }
        return Unmanaged.passRetained(context).toOpaque()
    }

    /// Ends the query string just after its `?`, in libmicrohttpd's own
    /// buffer, once the target has been copied: the request's query is read
    /// from that copy, never from the library. libmicrohttpd 0.9.75 stores
    /// every query parameter in the connection's 32 KB pool after this
    /// callback, and a target with some 500 of them ran the pool out: the
    /// library then neither answered nor closed, and the client waited for
    /// the connection timeout. With an empty query it stores none. The
    /// buffer is the library's writable read buffer (it writes the `?`'s
    /// NUL itself, at the address it found before calling us).
    private static func endQueryForLibrary(_ uri: UnsafeMutablePointer<CChar>) {
        guard let question = strchr(uri, CInt(UInt8(ascii: "?"))) else { return }
        question[1] = 0
    }

    /// Refuses a connection handed over once stop() has begun (the
    /// ``ConnectionAcceptor`` may have taken it just before): libmicrohttpd
    /// closes it. `MHD_quiesce_daemon` is no way to stop accepting: it races
    /// the epoll worker's own removal of the listening socket and aborts the
    /// process when it loses (libmicrohttpd 0.9.75: "Failed to remove listen
    /// FD from epoll set").
    package static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, _, _ in
        guard let cls else { return .NO }
        return Unmanaged<MHDServerCore>.fromOpaque(cls).takeUnretainedValue().isStopping ? .NO : .YES
    }

    package static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, conCls in
        guard let cls, let connection, let method, let uploadSize, let context = conCls?.pointee else { return .NO }
        let core = Unmanaged<MHDServerCore>.fromOpaque(cls).takeUnretainedValue()
        return core.handle(
            Unmanaged<RequestContext>.fromOpaque(context).takeUnretainedValue(), connection: connection,
            url: url, method: method, version: version, uploadData: uploadData, uploadSize: uploadSize)
    }

    package static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
        let core = cls.map { Unmanaged<MHDServerCore>.fromOpaque($0).takeUnretainedValue() }
        if let core, let connection { core.watch.requestFinished(connection) }
        guard let conCls, let pointer = conCls.pointee else { return }
        conCls.pointee = nil
        let context = Unmanaged<RequestContext>.fromOpaque(pointer).takeRetainedValue()
        context.close()
        core?.forget(context)
        // An upload dropped unfinished held its body until now; every
        // exchange's own objects count too: 138,000 health checks pipelined
        // on 300 connections, bodies of a few bytes, left 38 MB in the heap.
        core?.trimmer.exchangeEnded(bytes: max(context.bodyBytes, context.body.count) + context.answerBytes + MHDServerCore.exchangeObjects)
        core?.answerBudget.release(context.answerReserved)
        core?.bodyBudget.release(context.bodyReserved)
    }

    /// Connections opening and closing, for the ``ConnectionWatch``; each
    /// carries its ``ConnectionAddresses`` as its socket context meanwhile.
    package static let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, event in
        guard let cls, let connection else { return }
        let core = Unmanaged<MHDServerCore>.fromOpaque(cls).takeUnretainedValue()
        switch event {
        case .CONNECTION_NOTIFY_STARTED:
            socketContext?.pointee = Unmanaged.passRetained(core.addresses(of: connection)).toOpaque()
            core.watch.opened(connection, fd: alertd_mhd_connection_fd(connection))
        case .CONNECTION_NOTIFY_CLOSED:
            core.watch.closed(connection)
            if let socketContext, let opaque = socketContext.pointee {
                socketContext.pointee = nil
                let addresses = Unmanaged<ConnectionAddresses>.fromOpaque(opaque).takeRetainedValue()
                if let client = addresses.client { core.clientConnections.giveBack(client) }
            }
            core.connectionsClosed.add(1, ordering: .releasing)
        default: break
        }
    }
}
