// A pod's client on the AWS SDK for JavaScript v3: credentials from the
// SDK's default chain (here the container credentials provider), endpoint
// and Region from the environment.
//   node client.mjs identity   prints the caller's ARN
//   node client.mjs list-users lists users (to be refused)
//   node client.mjs identity-loop N S  prints the caller's ARN N times, S
//                              seconds apart, with one client: its
//                              credentials cached and refreshed by the SDK
import { STSClient, GetCallerIdentityCommand } from "@aws-sdk/client-sts";
import { IAMClient, ListUsersCommand } from "@aws-sdk/client-iam";

const what = process.argv[2];
try {
  if (what === "identity") {
    const id = await new STSClient({}).send(new GetCallerIdentityCommand({}));
    console.log(id.Arn);
  } else if (what === "identity-loop") {
    const sts = new STSClient({});
    for (let i = 0; i < Number(process.argv[3]); i++) {
      const id = await sts.send(new GetCallerIdentityCommand({}));
      console.log(id.Arn);
      await new Promise((r) => setTimeout(r, Number(process.argv[4]) * 1000));
    }
  } else if (what === "list-users") {
    await new IAMClient({}).send(new ListUsersCommand({}));
    console.log("listed");
  } else {
    throw new Error(`unknown command ${what}: give identity or list-users`);
  }
} catch (err) {
  console.error(`${err.name}: ${err.message}`);
  process.exit(1);
}
