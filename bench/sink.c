/*
 * bench/sink.c: the webhook receiver the benchmarks deliver to.
 *
 * Answers every POST with 200 as soon as the body is in, and records, per
 * alert in the body, one line "<id> <monotonic_ns> <path> <type>" in the
 * output file. The id is the value of the alert's `bench_id` label (found in
 * alertd's payload under alert.labels and in Alertmanager's under
 * alerts[].labels); a body without one falls back to alertd's `alert.id`.
 * `type` is "decision" for alertd's action-handler calls, else "alert".
 * The clock is CLOCK_MONOTONIC, the same clock Python's time.monotonic_ns()
 * reads, so the loaders' send times and these arrival times compare directly.
 *
 * GET (any path) flushes the file and answers "<ids> <requests>\n": how many
 * ids and POST requests have been recorded so far. SIGTERM or SIGINT flushes
 * and exits.
 *
 *   cc -O2 bench/sink.c $(pkg-config --cflags --libs libmicrohttpd) -o .build/bench/sink
 *   .build/bench/sink <port> <output file>
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

enum { MAX_BODY = 4 << 20, MAX_IDS = 64, MAX_ID = 128 };

static FILE *out;
static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_ulong ids_recorded;
static atomic_ulong requests_recorded;
static struct MHD_Response *ok_response;

struct upload {
    char *data;
    size_t len, cap;
    int too_large;
};

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Copies the JSON string value that starts right after `key` (skipping
 * whitespace and the colon) into dst; returns its length, or -1. Escapes are
 * not decoded: bench ids are plain ASCII. */
static int string_after(const char *p, const char *end, char *dst, size_t cap) {
    while (p < end && (*p == ' ' || *p == ':' || *p == '\t')) p++;
    if (p >= end || *p != '"') return -1;
    p++;
    size_t n = 0;
    while (p < end && *p != '"' && n + 1 < cap) {
        if (*p == ' ' || *p == '\n') return -1;
        dst[n++] = *p++;
    }
    if (p >= end || *p != '"') return -1;
    dst[n] = 0;
    return (int)n;
}

static void record(const char *url, struct upload *u, uint64_t at) {
    char ids[MAX_IDS][MAX_ID];
    int count = 0;
    const char *body = u->data ? u->data : "";
    const char *end = body + u->len;
    static const char key[] = "\"bench_id\"";
    for (const char *p = memmem(body, u->len, key, sizeof key - 1); p && count < MAX_IDS;
         p = memmem(p + 1, (size_t)(end - p - 1), key, sizeof key - 1)) {
        char id[MAX_ID];
        if (string_after(p + sizeof key - 1, end, id, sizeof id) <= 0) continue;
        int seen = 0; /* Alertmanager repeats the labels in groupLabels and commonLabels. */
        for (int i = 0; i < count && !seen; i++) seen = strcmp(ids[i], id) == 0;
        if (!seen) memcpy(ids[count++], id, sizeof id);
    }
    if (count == 0) {
        static const char alert[] = "\"alert\":{";
        const char *a = memmem(body, u->len, alert, sizeof alert - 1);
        const char *idkey = a ? memmem(a, (size_t)(end - a), "\"id\"", 4) : NULL;
        if (idkey && string_after(idkey + 4, end, ids[0], MAX_ID) > 0) count = 1;
    }
    const char *type = memmem(body, u->len, "\"type\":\"decision\"", 17) ? "decision" : "alert";
    pthread_mutex_lock(&out_lock);
    for (int i = 0; i < count; i++) fprintf(out, "%s %llu %s %s\n", ids[i], (unsigned long long)at, url, type);
    if (count == 0) fprintf(out, "- %llu %s unparsed\n", (unsigned long long)at, url);
    pthread_mutex_unlock(&out_lock);
    atomic_fetch_add(&ids_recorded, (unsigned long)count);
    atomic_fetch_add(&requests_recorded, 1);
}

static MHD_RESULT answer_count(struct MHD_Connection *connection) {
    pthread_mutex_lock(&out_lock);
    fflush(out);
    pthread_mutex_unlock(&out_lock);
    char text[64];
    int n = snprintf(text, sizeof text, "%lu %lu\n", atomic_load(&ids_recorded), atomic_load(&requests_recorded));
    struct MHD_Response *r = MHD_create_response_from_buffer((size_t)n, text, MHD_RESPMEM_MUST_COPY);
    MHD_RESULT ret = MHD_queue_response(connection, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ret;
}

static MHD_RESULT handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                         const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)cls;
    (void)version;
    if (strcmp(method, "POST") != 0) return answer_count(connection);
    struct upload *u = *con_cls;
    if (u == NULL) {
        u = calloc(1, sizeof *u);
        if (u == NULL) return MHD_NO;
        *con_cls = u;
        return MHD_YES;
    }
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        if (u->len + n > MAX_BODY) {
            u->too_large = 1;
        } else {
            if (u->len + n + 1 > u->cap) {
                size_t cap = u->cap ? u->cap : 4096;
                while (cap < u->len + n + 1) cap *= 2;
                char *grown = realloc(u->data, cap);
                if (grown == NULL) return MHD_NO;
                u->data = grown;
                u->cap = cap;
            }
            memcpy(u->data + u->len, upload_data, n);
            u->len += n;
            u->data[u->len] = 0;
        }
        *upload_data_size = 0;
        return MHD_YES;
    }
    /* The whole body is in: this is the arrival time. */
    record(url, u, now_ns());
    return MHD_queue_response(connection, MHD_HTTP_OK, ok_response);
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)connection;
    (void)toe;
    struct upload *u = *con_cls;
    if (u) {
        free(u->data);
        free(u);
        *con_cls = NULL;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <port> <output file>\n", argv[0]);
        return 64;
    }
    int port = atoi(argv[1]);
    out = fopen(argv[2], "w");
    if (out == NULL) {
        perror(argv[2]);
        return 1;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 20);
    static const char ok[] = "ok\n";
    ok_response = MHD_create_response_from_buffer(sizeof ok - 1, (void *)ok, MHD_RESPMEM_PERSISTENT);

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL); /* MHD's threads inherit the mask. */
    signal(SIGPIPE, SIG_IGN);

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(0x7f000001); /* 127.0.0.1 only */
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)port, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)2,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)60000,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)4096,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_END);
    if (d == NULL) {
        fprintf(stderr, "sink: cannot listen on 127.0.0.1:%d\n", port);
        return 1;
    }
    int sig = 0;
    sigwait(&signals, &sig);
    MHD_stop_daemon(d);
    pthread_mutex_lock(&out_lock);
    fclose(out);
    pthread_mutex_unlock(&out_lock);
    return 0;
}
