-- The demo schema of docker-compose.yml (run once by the postgres image on an empty data folder).
-- The server runs with wal_level=logical (see the service's command); the connector creates its own
-- publication (publication.autocreate.mode=filtered) and replication slot.
CREATE SCHEMA inventory;
SET search_path TO inventory;

CREATE TABLE customers (
  id         serial PRIMARY KEY,
  first_name varchar(255) NOT NULL,
  last_name  varchar(255) NOT NULL,
  email      varchar(255) NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE products (
  id          serial PRIMARY KEY,
  name        varchar(255) NOT NULL,
  description text,
  weight      numeric(8, 3),
  price       numeric(12, 2) NOT NULL
);

CREATE TABLE orders (
  id          serial PRIMARY KEY,
  order_date  date NOT NULL DEFAULT current_date,
  purchaser   integer NOT NULL REFERENCES customers (id),
  quantity    integer NOT NULL CHECK (quantity > 0),
  product_id  integer NOT NULL REFERENCES products (id)
);

-- full before-images for updates and deletes
ALTER TABLE customers REPLICA IDENTITY FULL;
ALTER TABLE products REPLICA IDENTITY FULL;
ALTER TABLE orders REPLICA IDENTITY FULL;

INSERT INTO customers (first_name, last_name, email) VALUES
  ('Sally', 'Thomas', 'sally.thomas@acme.com'),
  ('George', 'Bailey', 'gbailey@foobar.com'),
  ('Edward', 'Walker', 'ed@walker.com'),
  ('Anne', 'Kretchmar', 'annek@noanswer.org');

INSERT INTO products (name, description, weight, price) VALUES
  ('scooter', 'Small 2-wheel scooter', 3.140, 49.90),
  ('car battery', '12V car battery', 8.100, 89.00),
  ('hammer', '12oz carpenter''s hammer', 0.750, 14.50),
  ('rocks', 'box of assorted rocks', 5.300, 9.99);

INSERT INTO orders (order_date, purchaser, quantity, product_id) VALUES
  ('2016-01-16', 1, 1, 2),
  ('2016-01-17', 2, 2, 1),
  ('2016-02-19', 2, 2, 3),
  ('2016-02-21', 3, 1, 4);
