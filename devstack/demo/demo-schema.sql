-- The demo schema `make run` captures (idempotent).
CREATE SCHEMA IF NOT EXISTS demo;
CREATE TABLE IF NOT EXISTS demo.customers (
    id serial PRIMARY KEY,
    first_name varchar(255) NOT NULL,
    last_name varchar(255) NOT NULL,
    email varchar(255) NOT NULL,
    balance numeric(10,2) DEFAULT 0,
    updated timestamptz DEFAULT now()
);
INSERT INTO demo.customers (first_name, last_name, email, balance)
SELECT 'Anne', 'Kretchmar', 'annek@noanswer.org', 12.34
WHERE NOT EXISTS (SELECT 1 FROM demo.customers);
