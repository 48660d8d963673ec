#ifndef ALERTD_CCURL_SHIM_H
#define ALERTD_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call;
// these typed wrappers are the only way across.
static inline CURLcode alertd_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode alertd_curl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode alertd_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode alertd_curl_setopt_write(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_header(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_read(CURL *h, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_xferinfo(CURL *h, int (*f)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode alertd_curl_setopt_prereq(CURL *h, int (*f)(void *, char *, char *, int, int)) { return curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, f); }
static inline CURLcode alertd_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode alertd_curl_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode alertd_curl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode alertd_curl_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode alertd_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

// CURLMsg keeps its result in a union; reading it in C keeps Swift away from
// the union's layout.
static inline CURLcode alertd_curl_msg_result(const CURLMsg *m) { return m->data.result; }

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <string.h>
#include <unistd.h>

typedef curl_socket_t (*alertd_opensocket_fn)(void *, curlsocktype, struct curl_sockaddr *);
static inline CURLcode alertd_curl_setopt_opensocket(CURL *h, alertd_opensocket_fn f) { return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, f); }

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

static inline curl_socket_t alertd_curl_open_socket(const struct curl_sockaddr *a) {
    return socket(a->family, a->socktype, a->protocol);
}
#endif
