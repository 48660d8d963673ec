/*
 * bench/bounds/minimal.c: alertd's hot path written as a minimal C program on
 * the same libraries (libmicrohttpd, SQLite, libcurl), to show what this
 * machine allows for the figures of bench/run.sh.
 *
 * It does, per request, the least alertd must do and nothing else:
 *   - libmicrohttpd (internal epoll thread pool of 2, suspend/resume), the body
 *     read in full; a JSON array is split into its top-level objects, anything
 *     else is one object (no validation, no JSON parse beyond the split);
 *   - one writer thread commits every queued request's alerts in one SQLite
 *     transaction (WAL, synchronous=FULL, so the commit fsyncs), one row in
 *     `alerts` and one in `deliveries` per alert, and only then resumes the
 *     connections, which answer 202;
 *   - the committed deliveries go in memory to one libcurl multi thread that
 *     POSTs {"alert":<the object>} to the sink, at most <concurrency> at once
 *     over kept-alive connections; each outcome is settled (UPDATE) in the
 *     writer's next transaction, with no fsync of its own.
 * What it leaves out (routing, validation, ids, events, retries, silences,
 * signing, JSON encoding) only makes it faster: it is a bound, not a rival.
 *
 *   cc -O2 bench/bounds/minimal.c $(pkg-config --cflags --libs libmicrohttpd sqlite3 libcurl) -lpthread
 *   minimal <port> <sink url> <db path> [concurrency]
 *
 * GET on any path answers 200 (health). SIGTERM or SIGINT stops it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <curl/curl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

enum { MAX_BODY = 4 << 20 };

/* One alert on its way: from the request to the writer, then to curl. */
struct alert {
    struct alert *next;
    long long id;
    char *json; /* "{\"alert\":<object>}" */
    size_t len;
};

/* One request's life: body, then its alerts, queued until committed. */
struct request {
    struct request *next;
    struct MHD_Connection *connection;
    char *body;
    size_t len, cap;
    struct alert *alerts;
    int phase; /* 0 reading, 1 committing, 2 committed (answer 202), 3 failed (500) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t writer_wake = PTHREAD_COND_INITIALIZER;
static struct request *to_commit;           /* requests waiting for the writer */
static struct alert *settled;               /* deliveries done, to mark delivered */
static struct alert *to_deliver, **to_deliver_tail = &to_deliver;
static CURLM *multi;
static const char *sink_url;
static int concurrency = 64;
static atomic_llong next_id;
static volatile sig_atomic_t stopping;
static struct MHD_Response *accepted_response, *failed_response, *ok_response;

static void fail(const char *what, sqlite3 *db) {
    fprintf(stderr, "minimal: %s: %s\n", what, db ? sqlite3_errmsg(db) : "");
    exit(1);
}

/* Appends {"alert":<object>} for body[start, end) to the request's list. */
static void add_alert(struct request *r, const char *start, const char *end) {
    struct alert *a = calloc(1, sizeof *a);
    size_t n = (size_t)(end - start);
    a->json = malloc(n + 12);
    memcpy(a->json, "{\"alert\":", 9);
    memcpy(a->json + 9, start, n);
    a->json[9 + n] = '}';
    a->json[10 + n] = 0;
    a->len = n + 10;
    a->id = atomic_fetch_add(&next_id, 1) + 1;
    a->next = r->alerts;
    r->alerts = a;
}

/* The top-level objects of a JSON array (or the body as one object). */
static void split(struct request *r) {
    const char *p = r->body, *end = r->body + r->len;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    if (p >= end) return;
    if (*p != '[') {
        add_alert(r, p, end);
        return;
    }
    int depth = 0, in_string = 0;
    const char *start = NULL;
    for (p++; p < end; p++) {
        char c = *p;
        if (in_string) {
            if (c == '\\') p++;
            else if (c == '"') in_string = 0;
            continue;
        }
        if (c == '"') in_string = 1;
        else if (c == '{' && depth++ == 0) start = p;
        else if (c == '}' && --depth == 0 && start) add_alert(r, start, p + 1);
    }
}

/* --- the writer: one transaction for everything queued, then answers --- */

static void *writer(void *arg) {
    sqlite3 *db = arg;
    sqlite3_stmt *insert_alert, *insert_delivery, *mark_delivered;
    if (sqlite3_prepare_v2(db, "INSERT INTO alerts(id, body, created_at) VALUES (?, ?, ?)", -1, &insert_alert, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO deliveries(id, alert_id, state) VALUES (?, ?, 'pending')", -1, &insert_delivery, NULL) ||
        sqlite3_prepare_v2(db, "UPDATE deliveries SET state = 'delivered' WHERE id = ?", -1, &mark_delivered, NULL))
        fail("prepare", db);
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!to_commit && !settled && !stopping) pthread_cond_wait(&writer_wake, &lock);
        struct request *batch = to_commit;
        struct alert *done = settled;
        to_commit = NULL;
        settled = NULL;
        pthread_mutex_unlock(&lock);
        if (!batch && !done) return NULL;
        /* Only a batch with new alerts needs the fsync. */
        sqlite3_exec(db, batch ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
        int ok = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK;
        long long now = (long long)time(NULL) * 1000;
        for (struct request *r = batch; r && ok; r = r->next) {
            for (struct alert *a = r->alerts; a && ok; a = a->next) {
                sqlite3_bind_int64(insert_alert, 1, a->id);
                sqlite3_bind_text(insert_alert, 2, a->json, (int)a->len, SQLITE_STATIC);
                sqlite3_bind_int64(insert_alert, 3, now);
                ok = sqlite3_step(insert_alert) == SQLITE_DONE;
                sqlite3_reset(insert_alert);
                sqlite3_bind_int64(insert_delivery, 1, a->id);
                sqlite3_bind_int64(insert_delivery, 2, a->id);
                ok = ok && sqlite3_step(insert_delivery) == SQLITE_DONE;
                sqlite3_reset(insert_delivery);
            }
        }
        for (struct alert *a = done; a && ok; a = a->next) {
            sqlite3_bind_int64(mark_delivered, 1, a->id);
            ok = sqlite3_step(mark_delivered) == SQLITE_DONE;
            sqlite3_reset(mark_delivered);
        }
        ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
        if (!ok) {
            fprintf(stderr, "minimal: commit failed: %s\n", sqlite3_errmsg(db));
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        }
        while (done) {
            struct alert *next = done->next;
            free(done->json);
            free(done);
            done = next;
        }
        /* Answer, then hand the committed alerts to curl, in memory. */
        struct alert *handoff = NULL, **tail = &handoff;
        while (batch) {
            struct request *next = batch->next;
            batch->phase = ok ? 2 : 3;
            if (ok) {
                *tail = batch->alerts;
                while (*tail) tail = &(*tail)->next;
                batch->alerts = NULL;
            }
            MHD_resume_connection(batch->connection);
            batch = next;
        }
        if (handoff) {
            pthread_mutex_lock(&lock);
            *to_deliver_tail = handoff;
            to_deliver_tail = tail;
            pthread_mutex_unlock(&lock);
            curl_multi_wakeup(multi);
        }
    }
}

/* --- the deliverer: one multi handle, at most `concurrency` transfers --- */

static size_t discard(char *p, size_t size, size_t n, void *u) {
    (void)p;
    (void)u;
    return size * n;
}

static void *deliverer(void *arg) {
    (void)arg;
    struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
    int running = 0, active = 0;
    while (!stopping) {
        pthread_mutex_lock(&lock);
        while (to_deliver && active < concurrency) {
            struct alert *a = to_deliver;
            to_deliver = a->next;
            if (!to_deliver) to_deliver_tail = &to_deliver;
            CURL *e = curl_easy_init();
            curl_easy_setopt(e, CURLOPT_URL, sink_url);
            curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
            curl_easy_setopt(e, CURLOPT_POSTFIELDS, a->json);
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)a->len);
            curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
            curl_easy_setopt(e, CURLOPT_PRIVATE, a);
            curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
            curl_multi_add_handle(multi, e);
            active++;
        }
        pthread_mutex_unlock(&lock);
        curl_multi_perform(multi, &running);
        CURLMsg *m;
        int queued;
        struct alert *done = NULL;
        while ((m = curl_multi_info_read(multi, &queued))) {
            if (m->msg != CURLMSG_DONE) continue;
            struct alert *a;
            curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&a);
            if (m->data.result != CURLE_OK) fprintf(stderr, "minimal: delivery failed: %s\n", curl_easy_strerror(m->data.result));
            curl_multi_remove_handle(multi, m->easy_handle);
            curl_easy_cleanup(m->easy_handle);
            active--;
            a->next = done;
            done = a;
        }
        if (done) {
            pthread_mutex_lock(&lock);
            struct alert *last = done;
            while (last->next) last = last->next;
            last->next = settled;
            settled = done;
            pthread_cond_signal(&writer_wake);
            pthread_mutex_unlock(&lock);
        }
        pthread_mutex_lock(&lock);
        int more = to_deliver != NULL && active < concurrency;
        pthread_mutex_unlock(&lock);
        if (!more) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    curl_slist_free_all(headers);
    return NULL;
}

/* --- the server ---------------------------------------------------------- */

static MHD_RESULT handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                         const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls) {
    (void)cls;
    (void)url;
    (void)version;
    if (strcmp(method, "POST") != 0) return MHD_queue_response(connection, MHD_HTTP_OK, ok_response);
    struct request *r = *con_cls;
    if (r == NULL) {
        r = calloc(1, sizeof *r);
        if (r == NULL) return MHD_NO;
        r->connection = connection;
        *con_cls = r;
        return MHD_YES;
    }
    if (r->phase == 2) return MHD_queue_response(connection, 202, accepted_response);
    if (r->phase == 3) return MHD_queue_response(connection, 500, failed_response);
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        if (r->len + n > MAX_BODY) return MHD_NO;
        if (r->len + n > r->cap) {
            size_t cap = r->cap ? r->cap : 1024;
            while (cap < r->len + n) cap *= 2;
            char *grown = realloc(r->body, cap);
            if (grown == NULL) return MHD_NO;
            r->body = grown;
            r->cap = cap;
        }
        memcpy(r->body + r->len, upload_data, n);
        r->len += n;
        *upload_data_size = 0;
        return MHD_YES;
    }
    split(r);
    r->phase = 1;
    MHD_suspend_connection(connection);
    pthread_mutex_lock(&lock);
    r->next = to_commit;
    to_commit = r;
    pthread_cond_signal(&writer_wake);
    pthread_mutex_unlock(&lock);
    return MHD_YES;
}

static void completed(void *cls, struct MHD_Connection *connection, void **con_cls, enum MHD_RequestTerminationCode toe) {
    (void)cls;
    (void)connection;
    (void)toe;
    struct request *r = *con_cls;
    if (r) {
        while (r->alerts) {
            struct alert *next = r->alerts->next;
            free(r->alerts->json);
            free(r->alerts);
            r->alerts = next;
        }
        free(r->body);
        free(r);
        *con_cls = NULL;
    }
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s <port> <sink url> <db path> [concurrency]\n", argv[0]);
        return 64;
    }
    int port = atoi(argv[1]);
    sink_url = argv[2];
    if (argc > 4) concurrency = atoi(argv[4]);

    sqlite3 *db;
    if (sqlite3_open(argv[3], &db) != SQLITE_OK) fail("open", db);
    if (sqlite3_exec(db,
                     "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA wal_autocheckpoint=4000;"
                     "CREATE TABLE IF NOT EXISTS alerts(id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL);"
                     "CREATE TABLE IF NOT EXISTS deliveries(id INTEGER PRIMARY KEY, alert_id INTEGER NOT NULL, state TEXT NOT NULL);"
                     "CREATE INDEX IF NOT EXISTS deliveries_pending ON deliveries(state) WHERE state = 'pending';",
                     NULL, NULL, NULL) != SQLITE_OK)
        fail("schema", db);

    static const char accepted[] = "{\"accepted\":true}\n", failed[] = "{\"error\":\"store\"}\n", ok[] = "ok\n";
    accepted_response = MHD_create_response_from_buffer(sizeof accepted - 1, (void *)accepted, MHD_RESPMEM_PERSISTENT);
    failed_response = MHD_create_response_from_buffer(sizeof failed - 1, (void *)failed, MHD_RESPMEM_PERSISTENT);
    ok_response = MHD_create_response_from_buffer(sizeof ok - 1, (void *)ok, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(accepted_response, "Content-Type", "application/json");

    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals, NULL); /* every thread inherits the mask */
    signal(SIGPIPE, SIG_IGN);

    curl_global_init(CURL_GLOBAL_DEFAULT);
    multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)concurrency);
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, (long)concurrency);
    pthread_t w, d;
    pthread_create(&w, NULL, writer, db);
    pthread_create(&d, NULL, deliverer, NULL);

    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(0x7f000001);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME, (uint16_t)port, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)2,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)10000,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)120,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)4096,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "minimal: cannot listen on 127.0.0.1:%d\n", port);
        return 1;
    }
    int sig = 0;
    sigwait(&signals, &sig);
    MHD_stop_daemon(daemon);
    stopping = 1;
    pthread_mutex_lock(&lock);
    pthread_cond_signal(&writer_wake);
    pthread_mutex_unlock(&lock);
    curl_multi_wakeup(multi);
    pthread_join(d, NULL);
    pthread_join(w, NULL);
    sqlite3_close(db);
    return 0;
}
