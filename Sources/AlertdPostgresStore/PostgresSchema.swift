import FoundationEssentials
import AlertdPostgres
import AlertdStore

/// The PostgreSQL store's tables, as forward-only migrations (the same
/// tables and columns as the SQLite store's, times in milliseconds).
/// `alertd_schema` records how many have run; a new alertd adds a migration
/// and never edits an old one. Nodes starting together apply each one once:
/// whoever holds ``migrationLock`` migrates, the others then find it done.
enum PostgresSchema {
    /// How long a migration, or the wait for another node's, may take: an
    /// index built over a large database is minutes, not a lost session.
    static let migrationTimeout: Duration = .seconds(1_800)

    /// Advisory lock keys, one per thing done by one node at a time. Both
    /// halves of each pair spell "alertd" with a purpose.
    /// Migrating the schema.
    static let migrationLock: Int64 = 0x616C_6572_7464_0001
    /// Appending to the event log: held from a transaction's first event to
    /// its commit, so sequence numbers are handed out in commit order and a
    /// reader following the log never skips an event committed late.
    static let eventLock: Int64 = 0x616C_6572_7464_0002
    /// Expiry and escalation.
    static let maintenanceLock: Int64 = 0x616C_6572_7464_0003
    /// Pruning past the retention.
    static let pruneLock: Int64 = 0x616C_6572_7464_0004
    /// Flushing groups whose time has come.
    static let groupLock: Int64 = 0x616C_6572_7464_0005

    /// alertd's own SQLSTATE for a database it must leave alone (another
    /// program's tables, a newer alertd's schema): `store_incompatible`.
    static let refusalState = "XXALD"

    /// The channel every write that others should know of notifies at
    /// commit: new events, and deliveries due.
    static let channel = "alertd_changes"

    /// The tables and sequences of the current schema the session's user may
    /// not write, comma-separated, or NULL when it may write them all: a
    /// grant missing or revoked refuses every write (42501) while reads work.
    /// One privilege a call: listed together, any one of them passes.
    static let unwritableRelations = """
        SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace
          AND ((c.relkind = 'r' AND NOT (has_table_privilege(c.oid, 'SELECT') AND has_table_privilege(c.oid, 'INSERT')
                                        AND has_table_privilege(c.oid, 'UPDATE') AND has_table_privilege(c.oid, 'DELETE')))
            OR (c.relkind = 'S' AND NOT has_sequence_privilege(c.oid, 'USAGE')))
        """

    /// The database's clock, in the milliseconds rows keep, plus the
    /// parameter `shift`: how far the caller's `now` is from this node's
    /// clock (nothing but in tests that step time on). Claims are stamped
    /// and judged stale by it: by each node's own clock, a node 10 s off
    /// released another's running deliveries under a 6 s lease, which were
    /// then sent twice.
    static func databaseMillis(shift: String) -> String {
        "((extract(epoch FROM statement_timestamp()) * 1000)::bigint + \(shift))"
    }

    /// `shift` for ``databaseMillis(shift:)``.
    static func shift(_ now: Date) -> PostgresValue {
        .integer(StoreCoding.millis(now) - StoreCoding.millis(Date()))
    }

    /// A condition on an alert row: its spec's label `name` is `value`.
    /// Appends both to `args`, which the condition's placeholders number.
    static func hasLabel(_ name: String, _ value: String, args: inout [PostgresValue]) -> String {
        args += [.text(name), .text(value)]
        return "(spec::jsonb -> 'labels' ->> $\(args.count - 1)) = $\(args.count)"
    }

    static let migrations: [String] = [
        // 1: everything SQLite's migrations 1–7 built, plus the claimant of
        // each delivery in flight.
        """
        CREATE TABLE alerts (
            id           TEXT PRIMARY KEY,
            spec         TEXT NOT NULL,
            state        TEXT NOT NULL,
            severity     TEXT NOT NULL,
            dedup_key    TEXT,
            created_at   BIGINT NOT NULL,
            updated_at   BIGINT NOT NULL,
            expires_at   BIGINT,
            decided_by   TEXT,
            decided_at   BIGINT,
            comment      TEXT,
            escalate_at  BIGINT,
            escalate_to  TEXT,
            escalated_at BIGINT
        );
        -- At most one open alert per dedup key, across every node; also the look-up.
        CREATE UNIQUE INDEX alerts_open_dedup ON alerts(dedup_key) WHERE state = 'open' AND dedup_key IS NOT NULL;
        CREATE INDEX alerts_state ON alerts(state, id);
        CREATE INDEX alerts_expiry ON alerts(expires_at) WHERE state = 'open' AND expires_at IS NOT NULL;
        CREATE INDEX alerts_escalation ON alerts(escalate_at)
            WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL;
        CREATE INDEX alerts_closed ON alerts(updated_at) WHERE state <> 'open';

        CREATE TABLE deliveries (
            id              TEXT PRIMARY KEY,
            alert_id        TEXT NOT NULL REFERENCES alerts(id),
            presenter       TEXT NOT NULL,
            kind            TEXT NOT NULL,
            state           TEXT NOT NULL,
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at BIGINT,
            last_error      TEXT,
            created_at      BIGINT NOT NULL,
            updated_at      BIGINT NOT NULL,
            delivered_at    BIGINT,
            silenced_by     TEXT,
            claimed_by      TEXT
        );
        CREATE INDEX deliveries_due ON deliveries(presenter, next_attempt_at) WHERE state = 'pending';
        CREATE INDEX deliveries_next ON deliveries(next_attempt_at) WHERE state = 'pending';
        CREATE INDEX deliveries_alert ON deliveries(alert_id);
        CREATE INDEX deliveries_in_flight ON deliveries(updated_at) WHERE state = 'in_flight';
        CREATE INDEX deliveries_dead ON deliveries(alert_id) WHERE state = 'dead';
        CREATE INDEX deliveries_silenced ON deliveries(silenced_by) WHERE silenced_by IS NOT NULL AND state = 'pending';

        CREATE TABLE events (
            seq       BIGSERIAL PRIMARY KEY,
            type      TEXT NOT NULL,
            alert_id  TEXT NOT NULL,
            at        BIGINT NOT NULL,
            data      TEXT
        );
        CREATE INDEX events_at ON events(at);

        CREATE TABLE silences (
            id          TEXT PRIMARY KEY,
            matchers    TEXT NOT NULL,
            starts_at   BIGINT NOT NULL,
            ends_at     BIGINT NOT NULL,
            created_by  TEXT NOT NULL,
            comment     TEXT NOT NULL,
            updated_at  BIGINT NOT NULL
        );
        CREATE INDEX silences_end ON silences(ends_at);

        -- Deliveries a silence ever held back, each once; pruning keeps the total.
        CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
        INSERT INTO counters (name, value) VALUES ('deliveries.silenced_total', 0);
        """,
        // 2: follow-ups and alerts that resolve by themselves, as SQLite's 8.
        """
        ALTER TABLE alerts ADD COLUMN resolves_at BIGINT;
        ALTER TABLE alerts ADD COLUMN escalate_follow_ups TEXT;
        CREATE INDEX alerts_lapse ON alerts(resolves_at) WHERE state = 'open' AND resolves_at IS NOT NULL;
        ALTER TABLE deliveries ADD COLUMN follow_up_of TEXT;
        ALTER TABLE deliveries ADD COLUMN takes_follow_up BOOLEAN NOT NULL DEFAULT FALSE;
        """,
        // 3: re-sends folded into an open alert, as SQLite's 9.
        """
        ALTER TABLE alerts ADD COLUMN repeat_count BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE alerts ADD COLUMN last_seen_at BIGINT;
        """,
        // 4: the recipient of the action link that decided, as SQLite's 10.
        """
        ALTER TABLE alerts ADD COLUMN decided_recipient TEXT;
        """,
        // 5: groups of alerts, as SQLite's 11.
        """
        CREATE TABLE alert_groups (
            id           TEXT PRIMARY KEY,
            route        TEXT NOT NULL,
            labels       TEXT NOT NULL,
            settings     TEXT NOT NULL,
            created_at   BIGINT NOT NULL,
            next_due_at  BIGINT NOT NULL,
            notified_at  BIGINT
        );
        CREATE INDEX alert_groups_due ON alert_groups(next_due_at);
        CREATE TABLE group_members (
            group_id  TEXT NOT NULL,
            alert_id  TEXT NOT NULL,
            PRIMARY KEY (group_id, alert_id)
        );
        CREATE INDEX group_members_alert ON group_members(alert_id);
        CREATE TABLE group_told (
            group_id   TEXT NOT NULL,
            presenter  TEXT NOT NULL,
            sequence   BIGINT NOT NULL,
            alerts     TEXT NOT NULL,
            at         BIGINT NOT NULL,
            thread     TEXT,
            PRIMARY KEY (group_id, presenter)
        );
        ALTER TABLE deliveries ADD COLUMN group_snapshot TEXT;
        """,
        // What each presenter may still take for firing.
        """
        ALTER TABLE group_told ADD COLUMN unconfirmed TEXT;
        """,
        // What each presenter's destination takes for firing
        // (`AlertGroupTold.believed`), in place of the guess before, which
        // grew with every alert closed while a destination was down.
        """
        ALTER TABLE group_told RENAME COLUMN unconfirmed TO believed;
        UPDATE group_told SET believed = NULL;
        """,
        // The presenters each node has, renewed at its orphan sweeps: a
        // delivery is an orphan only when no live node has its presenter.
        """
        CREATE TABLE node_presenters (
            node       TEXT NOT NULL,
            presenter  TEXT NOT NULL,
            seen_at    BIGINT NOT NULL,
            PRIMARY KEY (node, presenter)
        );
        """,
        // Each node's claim lease, renewed with its claims: others wait out
        // that lease, not their own, before they take a claim of its.
        """
        CREATE TABLE node_leases (
            node      TEXT PRIMARY KEY,
            lease_ms  BIGINT NOT NULL,
            seen_at   BIGINT NOT NULL
        );
        """,
    ]
}
