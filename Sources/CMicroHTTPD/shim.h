#ifndef ALERTD_CMICROHTTPD_SHIM_H
#define ALERTD_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

// glibc declares accept4 only under _GNU_SOURCE, which Swift's view of it
// lacks; the server's acceptor needs it to take each connection
// close-on-exec at once, before a presenter's program can inherit it. Under
// a name of its own: a second `accept4` clashed with glibc's in the module.
int alertd_accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags) __asm__("accept4");

// MHD_start_daemon and MHD_get_connection_info are variadic, which Swift
// cannot call; these fixed-argument wrappers are the only way across.

/// Called once per request with the raw request target; its result becomes the
/// request's context pointer.
typedef void *(*alertd_mhd_uri_log_callback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon without a listening socket (connections come through
/// `MHD_add_connection`) with the options alertd uses. No per-address
/// connection limit: alertd's acceptor keeps a per-client one.
static inline struct MHD_Daemon *alertd_mhd_start(
    unsigned int flags,
    MHD_AcceptPolicyCallback accept_policy, void *accept_policy_cls,
    MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    alertd_mhd_uri_log_callback uri_log, void *uri_log_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int thread_pool_size, unsigned int connection_limit,
    unsigned int connection_timeout_seconds, size_t connection_memory_limit)
{
    return MHD_start_daemon(flags, 0, accept_policy, accept_policy_cls, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, uri_log_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
                            MHD_OPTION_END);
}

/// Sets the connection's own idle timeout, in seconds (0: none).
static inline void alertd_mhd_set_connection_timeout(struct MHD_Connection *connection, unsigned int seconds)
{
    MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT, seconds);
}

/// The connection's socket, or -1.
static inline int alertd_mhd_connection_fd(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

/// The peer's address as MHD recorded it at accept time, or NULL.
static inline const struct sockaddr *alertd_mhd_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info ? info->client_addr : NULL;
}

/// What the connection-notify callback keeps for the connection, or NULL.
static inline void *alertd_mhd_socket_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/// SO_PEERCRED of a Unix-domain socket. `struct ucred` needs _GNU_SOURCE, so a
/// layout-identical local struct is used instead. Returns 0 on success.
static inline int alertd_peer_credentials(int fd, uint32_t *uid, uint32_t *gid, int32_t *pid)
{
    struct { int32_t pid; uint32_t uid; uint32_t gid; } cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) return -1;
    *uid = cred.uid;
    *gid = cred.gid;
    *pid = cred.pid;
    return 0;
}
#endif
