-- Integration reviews: a publisher asks for placements to be certified for impression-priced demand
-- ("Events" rule 4); an operator approves (the placements become certified) or rejects with a reason.
CREATE TABLE integration_reviews (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  publisher_id uuid NOT NULL REFERENCES publishers (id) ON DELETE CASCADE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected')),
  note text,
  decided_by text,
  decision_reason text,
  decided_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX integration_reviews_publisher_idx ON integration_reviews (publisher_id, created_at, id);
CREATE INDEX integration_reviews_status_idx ON integration_reviews (status, created_at, id);

CREATE TABLE integration_review_placements (
  review_id uuid NOT NULL REFERENCES integration_reviews (id) ON DELETE CASCADE,
  placement_id text NOT NULL REFERENCES placements (id) ON DELETE CASCADE,
  PRIMARY KEY (review_id, placement_id)
);
CREATE INDEX integration_review_placements_placement_idx ON integration_review_placements (placement_id);
