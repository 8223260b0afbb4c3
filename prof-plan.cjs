const Database = require("better-sqlite3");
const d = new Database("/tmp/counts-prof.db");
const T = d.prepare("select id from team where name='All hands'").get().id;
const S = d.prepare("select id from team where name!='All hands' order by name limit 1").get().id;
const q = (t) =>
  `select team_member.user_id as id, team_member.member_name as name, user.email, team_member.team_role from team_member inner join user on user.id = team_member.user_id where team_member.team_id = '${t}' order by team_member.member_name, team_member.user_id limit 51`;
for (const t of [T, S]) {
  console.log(
    d
      .prepare("explain query plan " + q(t))
      .all()
      .map((r) => r.detail)
      .join("\n"),
  );
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    d.prepare(q(t)).all();
    console.log("ms", performance.now() - t0);
  }
}
console.log(d.prepare("select * from sqlite_stat1 where tbl in ('team_member','team')").all());
