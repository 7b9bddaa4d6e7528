-- Several nodes on one database (docs/deploy/cluster.md): each running node has a row with a lease
-- renewed on the database clock, and each room at most one owner node and an owner epoch that
-- grows at every claim. Every commit of a cluster node checks the epoch it claimed the room at, so
-- a node that lost a room can never write to it. A single node never writes these columns: its
-- rooms keep owner_node NULL and owner_epoch 0. PostgreSQL only: SQLite runs a single node, and
-- the shared queries name these columns only in cluster mode.
CREATE TABLE nodes (
    id               uuid        PRIMARY KEY,
    advertise_url    text        NOT NULL,
    started_at       timestamptz NOT NULL DEFAULT now(),
    lease_expires_at timestamptz NOT NULL
);

-- No foreign key to nodes: a room whose owner's row is gone is as free as one whose lease expired,
-- and a claim must not wait on the nodes table's locks.
ALTER TABLE rooms ADD COLUMN owner_node uuid;
ALTER TABLE rooms ADD COLUMN owner_epoch bigint NOT NULL DEFAULT 0 CHECK (owner_epoch >= 0);

CREATE INDEX rooms_owner ON rooms (owner_node) WHERE owner_node IS NOT NULL;
