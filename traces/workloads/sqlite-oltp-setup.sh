# A 100,000-row table of customer-like rows (names and addresses made of
# words from C headers, numbers), about 24 MB, and an index.
find /usr/include/linux -name '*.h' | sort | xargs cat | tr -cs 'A-Za-z' '\n' | awk 'length($0) > 3' | head -n 20000 > words.txt || true
sqlite3 db.sqlite "PRAGMA page_size=4096" \
  "CREATE TABLE w(t TEXT)" ".mode list" ".import words.txt w" \
  "CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT, street TEXT, city TEXT, balance INTEGER, ytd INTEGER, data TEXT)" \
  "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 100000)
   INSERT INTO customer SELECT n, (SELECT t FROM w WHERE rowid = 1 + (n * 7) % 20000) || ' ' || (SELECT t FROM w WHERE rowid = 1 + (n * 13) % 20000),
     (n % 977) || ' ' || (SELECT t FROM w WHERE rowid = 1 + (n * 31) % 20000) || ' Street',
     (SELECT t FROM w WHERE rowid = 1 + (n % 500)), (n * 37) % 100000, 0,
     (SELECT group_concat(t, ' ') FROM w WHERE rowid BETWEEN 1 + (n * 17) % 19980 AND 1 + (n * 17) % 19980 + 25) FROM k" \
  "CREATE INDEX customer_name ON customer(name)" "DROP TABLE w" "VACUUM"
rm words.txt
