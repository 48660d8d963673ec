#ifndef ALERTD_CCURL_SHIM_H
#define ALERTD_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

// libcurl is loaded on first use with dlopen, not linked. With its TLS, SSH,
// LDAP, Kerberos, IDN and HTTP/2 libraries it is ~36 shared objects, and
// loading them took over half of alertctl's start-up (6 ms of CPU, measured
// with `perf stat`) for commands that make no request or that talk to the
// local daemon without libcurl. Swift calls the `alertd_curl_*` functions
// below, which go through this table; `alertd_curl()` fills it once.
struct alertd_curl_functions {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    const char *(*multi_strerror)(CURLMcode);
    CURLMcode (*multi_wakeup)(CURLM *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
};

// Weak, so every Swift file that uses the header shares one table and one once-flag.
__attribute__((weak)) struct alertd_curl_functions alertd_curl_table = {0};
__attribute__((weak)) pthread_once_t alertd_curl_table_once = PTHREAD_ONCE_INIT;

static inline void alertd_curl_load(void) {
    // The runtime library of Debian's libcurl4 (the -dev package links it too).
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        fprintf(stderr, "cannot load libcurl: %s; install libcurl4 (apt-get install libcurl4)\n", dlerror());
        abort();
    }
    struct alertd_curl_functions *t = &alertd_curl_table;
#define ALERTD_CURL_SYMBOL(field, name) \
    if (!(*(void **)&t->field = dlsym(library, name))) { \
        fprintf(stderr, "cannot load libcurl: %s has no %s; alertd needs libcurl 7.84 or later\n", "libcurl.so.4", name); \
        abort(); \
    }
    ALERTD_CURL_SYMBOL(global_init, "curl_global_init")
    ALERTD_CURL_SYMBOL(easy_init, "curl_easy_init")
    ALERTD_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
    ALERTD_CURL_SYMBOL(easy_reset, "curl_easy_reset")
    ALERTD_CURL_SYMBOL(easy_perform, "curl_easy_perform")
    ALERTD_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
    ALERTD_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
    ALERTD_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
    ALERTD_CURL_SYMBOL(multi_init, "curl_multi_init")
    ALERTD_CURL_SYMBOL(multi_cleanup, "curl_multi_cleanup")
    ALERTD_CURL_SYMBOL(multi_add_handle, "curl_multi_add_handle")
    ALERTD_CURL_SYMBOL(multi_remove_handle, "curl_multi_remove_handle")
    ALERTD_CURL_SYMBOL(multi_info_read, "curl_multi_info_read")
    ALERTD_CURL_SYMBOL(multi_perform, "curl_multi_perform")
    ALERTD_CURL_SYMBOL(multi_poll, "curl_multi_poll")
    ALERTD_CURL_SYMBOL(multi_setopt, "curl_multi_setopt")
    ALERTD_CURL_SYMBOL(multi_strerror, "curl_multi_strerror")
    ALERTD_CURL_SYMBOL(multi_wakeup, "curl_multi_wakeup")
    ALERTD_CURL_SYMBOL(slist_append, "curl_slist_append")
    ALERTD_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
#undef ALERTD_CURL_SYMBOL
}

/// The loaded functions; loads libcurl on the first call (exits with a message if it is missing).
static inline const struct alertd_curl_functions *alertd_curl(void) {
    pthread_once(&alertd_curl_table_once, alertd_curl_load);
    return &alertd_curl_table;
}

static inline CURLcode alertd_curl_global_init(long flags) { return alertd_curl()->global_init(flags); }
static inline CURL *alertd_curl_easy_init(void) { return alertd_curl()->easy_init(); }
static inline void alertd_curl_easy_cleanup(CURL *h) { alertd_curl()->easy_cleanup(h); }
static inline void alertd_curl_easy_reset(CURL *h) { alertd_curl()->easy_reset(h); }
static inline CURLcode alertd_curl_easy_perform(CURL *h) { return alertd_curl()->easy_perform(h); }
static inline const char *alertd_curl_easy_strerror(CURLcode c) { return alertd_curl()->easy_strerror(c); }
static inline CURLM *alertd_curl_multi_init(void) { return alertd_curl()->multi_init(); }
static inline CURLMcode alertd_curl_multi_cleanup(CURLM *m) { return alertd_curl()->multi_cleanup(m); }
static inline CURLMcode alertd_curl_multi_add_handle(CURLM *m, CURL *h) { return alertd_curl()->multi_add_handle(m, h); }
static inline CURLMcode alertd_curl_multi_remove_handle(CURLM *m, CURL *h) { return alertd_curl()->multi_remove_handle(m, h); }
static inline CURLMsg *alertd_curl_multi_info_read(CURLM *m, int *queued) { return alertd_curl()->multi_info_read(m, queued); }
static inline CURLMcode alertd_curl_multi_perform(CURLM *m, int *running) { return alertd_curl()->multi_perform(m, running); }
static inline CURLMcode alertd_curl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned int n, int ms, int *ready) {
    return alertd_curl()->multi_poll(m, fds, n, ms, ready);
}
static inline const char *alertd_curl_multi_strerror(CURLMcode c) { return alertd_curl()->multi_strerror(c); }
static inline CURLMcode alertd_curl_multi_wakeup(CURLM *m) { return alertd_curl()->multi_wakeup(m); }
static inline struct curl_slist *alertd_curl_slist_append(struct curl_slist *l, const char *s) { return alertd_curl()->slist_append(l, s); }
static inline void alertd_curl_slist_free_all(struct curl_slist *l) { alertd_curl()->slist_free_all(l); }

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call;
// these typed wrappers are the only way across.
static inline CURLcode alertd_curl_setopt_long(CURL *h, CURLoption o, long v) { return alertd_curl()->easy_setopt(h, o, v); }
static inline CURLcode alertd_curl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return alertd_curl()->easy_setopt(h, o, v); }
static inline CURLcode alertd_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return alertd_curl()->easy_setopt(h, o, v); }
static inline CURLcode alertd_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return alertd_curl()->easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return alertd_curl()->easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_read(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return alertd_curl()->easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_xferinfo(CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return alertd_curl()->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_prereq(CURL *h, int (*f)(void *, char *, char *, int, int)) { return alertd_curl()->easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
typedef int (*alertd_debug_fn)(CURL *, curl_infotype, char *, size_t, void *);
static inline CURLcode alertd_curl_setopt_debug(CURL *h, alertd_debug_fn f) { return alertd_curl()->easy_setopt(h, CURLOPT_DEBUGFUNCTION, f); }
static inline CURLcode alertd_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return alertd_curl()->easy_getinfo(h, i, v); }
static inline CURLcode alertd_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return alertd_curl()->easy_getinfo(h, i, v); }
static inline CURLcode alertd_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return alertd_curl()->easy_getinfo(h, i, v); }
static inline CURLcode alertd_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return alertd_curl()->easy_getinfo(h, i, v); }
static inline CURLMcode alertd_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return alertd_curl()->multi_setopt(m, o, v); }

// CURLMsg keeps its result in a union; reading it in C keeps Swift away from
// the union's layout.
static inline CURLcode alertd_curl_msg_result(const CURLMsg *m) { return m->data.result; }

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

typedef curl_socket_t (*alertd_opensocket_fn)(void *, curlsocktype, struct curl_sockaddr *);
static inline CURLcode alertd_curl_setopt_opensocket(CURL *h, alertd_opensocket_fn f) { return alertd_curl()->easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }
typedef int (*alertd_closesocket_fn)(void *, curl_socket_t);
static inline CURLcode alertd_curl_setopt_closesocket(CURL *h, alertd_closesocket_fn f) { return alertd_curl()->easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, f); }

// Writes the numeric address of a resolved peer into buf and returns its
// port, or -1 for a family other than IPv4/IPv6 (such as AF_UNIX).
static inline int alertd_curl_sockaddr_peer(const struct curl_sockaddr *a, char *buf, socklen_t len) {
    if (a->family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->addr;
        if (!inet_ntop(AF_INET, &in->sin_addr, buf, len)) return -1;
        return ntohs(in->sin_port);
    }
    if (a->family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->addr;
        if (!inet_ntop(AF_INET6, &in6->sin6_addr, buf, len)) return -1;
        return ntohs(in6->sin6_port);
    }
    return -1;
}

// Close-on-exec from the start: a program an exec presenter runs must not
// inherit a connection alertd keeps, and could write on, to another service.
static inline curl_socket_t alertd_curl_open_socket(const struct curl_sockaddr *a) {
    return socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
}
#endif
