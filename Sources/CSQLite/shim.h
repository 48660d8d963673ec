#ifndef ALERTD_CSQLITE_SHIM_H
#define ALERTD_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro over a cast Swift cannot import.
static inline sqlite3_destructor_type alertd_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's
// allocation statistics, which take a process-wide mutex around every
// malloc and free (SQLite recommends it off); only before the first open.
static inline int alertd_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

// No page-cache memory set aside when a connection opens: SQLite's default
// takes 20 pages (about 88 KB) per connection at once and writes into every
// one, resident though an idle or small store never fills them. Pages are
// allocated one by one as the cache grows instead; a busy cache reuses its own.
static inline int alertd_sqlite_no_initial_page_cache(void) { return sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0); }
#endif
