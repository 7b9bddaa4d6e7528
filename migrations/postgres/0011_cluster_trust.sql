-- Peers that prove who they are (docs/deploy/cluster.md, "Trust between nodes"): the cluster
-- keeps a verifier of its secret, HMAC-SHA256 keyed by the secret over a fixed text, written by
-- the first node that joins. Every node checks it when it joins and refuses to start with another
-- secret (which would make its peers' calls and its own fail or, worse, be half-believed). One
-- row at most. To change the secret: stop every node, DELETE FROM cluster_trust, start them
-- with the new one.
CREATE TABLE cluster_trust (
    only_row        boolean     PRIMARY KEY DEFAULT true CHECK (only_row),
    secret_verifier bytea       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- Two running nodes must never advertise the same URL (one's relays would reach the other):
-- a joining node looks for a live one under an advisory lock, by URL.
CREATE INDEX nodes_advertise_url ON nodes (advertise_url);
