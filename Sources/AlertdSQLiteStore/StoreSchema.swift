/// The store's tables, as forward-only migrations. `PRAGMA user_version`
/// records how many have run; a new alertd adds a migration and never edits
/// an old one. `PRAGMA application_id` marks the file as alertd's, so
/// another program's SQLite database is refused rather than adopted.
package enum StoreSchema {
    /// alertd's `application_id`: "alrt" in ASCII, as `file(1)` shows it.
    package static let applicationID: Int32 = 0x616C_7274

    /// Marks the file as alertd's. Setting it rewrites the header page even
    /// when the value is unchanged, so it is also the smallest write that
    /// really reaches the disk: what proves the store writable.
    package static let stamp = "PRAGMA application_id = \(applicationID)"

    /// The tables every alertd store has had since migration 1; with a
    /// `user_version`, they tell an alertd store from before the id.
    package static let coreTables: Set<String> = ["alerts", "deliveries", "events"]

    package static let migrations: [String] = [
        // 1: alerts, deliveries, events.
        """
        CREATE TABLE alerts (
            id          TEXT PRIMARY KEY,
            spec        TEXT NOT NULL,
            state       TEXT NOT NULL,
            severity    TEXT NOT NULL,
            dedup_key   TEXT,
            created_at  INTEGER NOT NULL,
            updated_at  INTEGER NOT NULL,
            expires_at  INTEGER,
            decided_by  TEXT,
            decided_at  INTEGER,
            comment     TEXT
        );
        -- At most one open alert per dedup key; also the dedup look-up.
        CREATE UNIQUE INDEX alerts_open_dedup ON alerts(dedup_key)
            WHERE state = 'open' AND dedup_key IS NOT NULL;
        CREATE INDEX alerts_state ON alerts(state, id);
        CREATE INDEX alerts_expiry ON alerts(expires_at) WHERE state = 'open' AND expires_at IS NOT NULL;

        CREATE TABLE deliveries (
            id              TEXT PRIMARY KEY,
            alert_id        TEXT NOT NULL REFERENCES alerts(id),
            presenter       TEXT NOT NULL,
            kind            TEXT NOT NULL DEFAULT 'alert',
            state           TEXT NOT NULL,
            attempts        INTEGER NOT NULL DEFAULT 0,
            next_attempt_at INTEGER,
            last_error      TEXT,
            created_at      INTEGER NOT NULL,
            updated_at      INTEGER NOT NULL,
            delivered_at    INTEGER
        );
        -- The dispatcher's "what is due for this presenter" query.
        CREATE INDEX deliveries_due ON deliveries(presenter, next_attempt_at) WHERE state = 'pending';
        -- "When is anything due next".
        CREATE INDEX deliveries_next ON deliveries(next_attempt_at) WHERE state = 'pending';
        CREATE INDEX deliveries_alert ON deliveries(alert_id);
        CREATE INDEX deliveries_state ON deliveries(state) WHERE state IN ('in_flight', 'dead');

        CREATE TABLE events (
            seq       INTEGER PRIMARY KEY AUTOINCREMENT,
            type      TEXT NOT NULL,
            alert_id  TEXT NOT NULL,
            at        INTEGER NOT NULL,
            data      TEXT
        );
        """,
        // 2: escalation, durable across restarts.
        """
        ALTER TABLE alerts ADD COLUMN escalate_at INTEGER;
        ALTER TABLE alerts ADD COLUMN escalate_to TEXT;
        ALTER TABLE alerts ADD COLUMN escalated_at INTEGER;
        CREATE INDEX alerts_escalation ON alerts(escalate_at)
            WHERE state = 'open' AND escalate_at IS NOT NULL AND escalated_at IS NULL;
        """,
        // 3: live totals kept by triggers, so health checks, metrics and
        // status lines cost the same with a million alerts as with ten.
        """
        CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO counters (name, value)
            SELECT 'alerts.open', COUNT(*) FROM alerts WHERE state = 'open';
        INSERT INTO counters (name, value)
            SELECT 'deliveries.' || s.state, (SELECT COUNT(*) FROM deliveries d WHERE d.state = s.state)
            FROM (SELECT 'pending' AS state UNION ALL SELECT 'in_flight' UNION ALL SELECT 'delivered' UNION ALL SELECT 'dead') s;
        CREATE TRIGGER alerts_count_insert AFTER INSERT ON alerts WHEN new.state = 'open' BEGIN
            UPDATE counters SET value = value + 1 WHERE name = 'alerts.open';
        END;
        CREATE TRIGGER alerts_count_update AFTER UPDATE OF state ON alerts WHEN old.state != new.state BEGIN
            UPDATE counters SET value = value - (old.state = 'open') + (new.state = 'open') WHERE name = 'alerts.open';
        END;
        CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries BEGIN
            UPDATE counters SET value = value + 1 WHERE name = 'deliveries.' || new.state;
        END;
        CREATE TRIGGER deliveries_count_update AFTER UPDATE OF state ON deliveries WHEN old.state != new.state BEGIN
            UPDATE counters SET value = value - 1 WHERE name = 'deliveries.' || old.state;
            UPDATE counters SET value = value + 1 WHERE name = 'deliveries.' || new.state;
        END;
        """,
        // 4: pruning closed alerts keeps the counters right.
        """
        CREATE TRIGGER alerts_count_delete AFTER DELETE ON alerts WHEN old.state = 'open' BEGIN
            UPDATE counters SET value = value - 1 WHERE name = 'alerts.open';
        END;
        CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries BEGIN
            UPDATE counters SET value = value - 1 WHERE name = 'deliveries.' || old.state;
        END;
        CREATE INDEX alerts_closed ON alerts(updated_at) WHERE state != 'open';
        CREATE INDEX events_at ON events(at);
        """,
        // 5: the `kind` column says what a delivery is for (it held a
        // constant until now): a presenter, or a decision's handler call.
        """
        UPDATE deliveries SET kind = CASE WHEN presenter LIKE 'handler:%' THEN 'handler' ELSE 'presenter' END;
        """,
        // 6: the file says it is alertd's (a new store gets it here too).
        // Stores from before had application_id 0 and are adopted by this.
        stamp,
        // 7: silences, and the deliveries they hold back. `silenced_by` is
        // the silence that last held a delivery; the counter counts each
        // delivery the first time one does.
        """
        CREATE TABLE silences (
            id          TEXT PRIMARY KEY,
            matchers    TEXT NOT NULL,
            starts_at   INTEGER NOT NULL,
            ends_at     INTEGER NOT NULL,
            created_by  TEXT NOT NULL,
            comment     TEXT NOT NULL,
            updated_at  INTEGER NOT NULL
        );
        CREATE INDEX silences_end ON silences(ends_at);
        ALTER TABLE deliveries ADD COLUMN silenced_by TEXT;
        CREATE INDEX deliveries_silenced ON deliveries(silenced_by) WHERE silenced_by IS NOT NULL AND state = 'pending';
        INSERT INTO counters (name, value) VALUES ('deliveries.silenced', 0), ('deliveries.silenced_total', 0);
        CREATE TRIGGER deliveries_count_silenced AFTER UPDATE OF silenced_by ON deliveries
            WHEN old.silenced_by IS NULL AND new.silenced_by IS NOT NULL BEGIN
            UPDATE counters SET value = value + 1 WHERE name = 'deliveries.silenced_total';
        END;
        """,
        // 8: follow-ups and alerts that resolve by themselves. An alert
        // delivery says whether its presenter is told when the alert closes
        // (`takes_follow_up`, and for escalations `escalate_follow_ups`); a
        // follow-up names the delivery it follows up. `resolves_at` is
        // Alertmanager's `endsAt`, moved on by each re-send.
        """
        ALTER TABLE alerts ADD COLUMN resolves_at INTEGER;
        ALTER TABLE alerts ADD COLUMN escalate_follow_ups TEXT;
        CREATE INDEX alerts_lapse ON alerts(resolves_at) WHERE state = 'open' AND resolves_at IS NOT NULL;
        ALTER TABLE deliveries ADD COLUMN follow_up_of TEXT;
        ALTER TABLE deliveries ADD COLUMN takes_follow_up INTEGER NOT NULL DEFAULT 0;
        """,
        // 9: re-sends folded into an open alert by its dedup key, counted,
        // with when the latest arrived.
        """
        ALTER TABLE alerts ADD COLUMN repeat_count INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE alerts ADD COLUMN last_seen_at INTEGER;
        """,
        // 10: the address the action link that decided an alert was sent
        // to, when its presenter knew one (the link signs it).
        """
        ALTER TABLE alerts ADD COLUMN decided_recipient TEXT;
        """,
        // 11: groups of alerts (a grouped route's `group_by`), their
        // members, their timers and what each presenter was last told; a
        // group notification's delivery keeps what it says.
        """
        CREATE TABLE alert_groups (
            id           TEXT PRIMARY KEY,
            route        TEXT NOT NULL,
            labels       TEXT NOT NULL,
            settings     TEXT NOT NULL,
            created_at   INTEGER NOT NULL,
            next_due_at  INTEGER NOT NULL,
            notified_at  INTEGER
        );
        CREATE INDEX alert_groups_due ON alert_groups(next_due_at);
        CREATE TABLE group_members (
            group_id  TEXT NOT NULL,
            alert_id  TEXT NOT NULL,
            PRIMARY KEY (group_id, alert_id)
        ) WITHOUT ROWID;
        CREATE INDEX group_members_alert ON group_members(alert_id);
        CREATE TABLE group_told (
            group_id   TEXT NOT NULL,
            presenter  TEXT NOT NULL,
            sequence   INTEGER NOT NULL,
            alerts     TEXT NOT NULL,
            at         INTEGER NOT NULL,
            thread     TEXT,
            PRIMARY KEY (group_id, presenter)
        ) WITHOUT ROWID;
        ALTER TABLE deliveries ADD COLUMN group_snapshot TEXT;
        """,
        // 12: a delivery's two busiest moves, claimed (pending → in_flight)
        // and delivered (in_flight → delivered), are counted by the
        // statements that make them, once per batch (`CounterMoves`), not
        // by this trigger row by row: its two counter updates per move were
        // a fifth of SQLite's work per delivered alert.
        """
        DROP TRIGGER deliveries_count_update;
        CREATE TRIGGER deliveries_count_update AFTER UPDATE OF state ON deliveries
            WHEN old.state != new.state AND NOT (old.state = 'pending' AND new.state = 'in_flight')
                AND NOT (old.state = 'in_flight' AND new.state = 'delivered') BEGIN
            UPDATE counters SET value = value - 1 WHERE name = 'deliveries.' || old.state;
            UPDATE counters SET value = value + 1 WHERE name = 'deliveries.' || new.state;
        END;
        """,
        // 13: every alert stored and every delivery stored or moved is
        // counted by the statements that make them (`CounterMoves`). A row
        // trigger cost SQLite a sub-program frame per row even where its
        // WHEN said no: a sixth of SQLite's work per delivered alert.
        // Closing and deleting, and a silence's first hold, keep theirs.
        """
        DROP TRIGGER alerts_count_insert;
        DROP TRIGGER deliveries_count_insert;
        DROP TRIGGER deliveries_count_update;
        """,
        // 14: "when is anything due" walks `deliveries_due` a presenter at a
        // time (`SQLiteAlertStore.nextDue`); this index cost every new
        // delivery and every claim a write.
        """
        DROP INDEX deliveries_next;
        """,
        // 15: pruning reads the oldest events by `seq`
        // (`SQLiteAlertStore.pruneEvents`); this index cost every event a
        // second b-tree to write, and every commit one more WAL frame.
        """
        DROP INDEX IF EXISTS events_at;
        """,
        // 16: what each presenter may still take for firing.
        """
        ALTER TABLE group_told ADD COLUMN unconfirmed TEXT;
        """,
        // 17: what each presenter's destination takes for firing
        // (`AlertGroupTold.believed`), in place of 16's guess, which
        // grew with every alert closed while a destination was down.
        """
        ALTER TABLE group_told RENAME COLUMN unconfirmed TO believed;
        UPDATE group_told SET believed = NULL;
        """,
        // 18: a group notification's snapshot in a table of its own. In
        // its delivery's row, every claim and outcome rewrote it whole:
        // a group of 5,000 long alerts made a 41 MB row, and each change
        // to the group 1.6 GB of writes.
        """
        CREATE TABLE group_snapshots (
            delivery_id TEXT PRIMARY KEY,
            snapshot    TEXT NOT NULL
        );
        INSERT INTO group_snapshots (delivery_id, snapshot) SELECT id, group_snapshot FROM deliveries WHERE group_snapshot IS NOT NULL;
        UPDATE deliveries SET group_snapshot = NULL WHERE group_snapshot IS NOT NULL;
        """,
    ]
}
