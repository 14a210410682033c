// A pod's client on the AWS SDK for JavaScript v3: credentials from the
// SDK's default chain (here the container credentials provider), endpoint
// and Region from the environment.
//   node client.mjs identity   prints the caller's ARN
//   node client.mjs list-users lists users (to be refused)
import { STSClient, GetCallerIdentityCommand } from "@aws-sdk/client-sts";
import { IAMClient, ListUsersCommand } from "@aws-sdk/client-iam";

const what = process.argv[2];
try {
  if (what === "identity") {
    const id = await new STSClient({}).send(new GetCallerIdentityCommand({}));
    console.log(id.Arn);
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
