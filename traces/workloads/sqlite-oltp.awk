# OLTP-like transactions: point reads by id (skewed: TPC-C's NURand), a read
# by name, a balance update; N transactions.
function nurand(a, x, y) { return (int(rand() * (a + 1)) + int(x + rand() * (y - x + 1))) % (y - x + 1) + x }
BEGIN {
  srand(1); print "PRAGMA journal_mode=PERSIST;"; print "PRAGMA cache_size=-256;"
  for (t = 0; t < N; t++) {
    print "BEGIN;"
    for (j = 0; j < 4; j++) printf "SELECT name, balance FROM customer WHERE id = %d;\n", nurand(1023, 1, 100000)
    printf "SELECT count(*) FROM customer WHERE name >= 'ab%c' AND name < 'ab%cz';\n", 97 + t % 26, 97 + t % 26
    printf "UPDATE customer SET balance = balance - %d, ytd = ytd + 1 WHERE id = %d;\n", t % 500, nurand(1023, 1, 100000)
    print "COMMIT;"
  }
}
