//! The cloud table: command in, level and finding ids out.

use assent_client::protocol::Level::{self, Destructive, Moderate};

use super::super::git::tests::check;

const DEL: &[&str] = &["cloud.delete"];
const HTTP: &[&str] = &["cloud.http_delete"];
const SYNC: &[&str] = &["cloud.sync_delete"];
const REMOVE: &[&str] = &["cloud.container_remove"];
const STOP: &[&str] = &["cloud.stop"];
const CHANGE: &[&str] = &["cloud.remote_change"];

#[rustfmt::skip]
const HELD: &[(&str, Level, &[&str])] = &[
    ("aws s3 rm s3://bucket/key", Destructive, DEL),
    ("aws s3 rb s3://bucket --force", Destructive, DEL),
    ("aws --profile prod elbv2 delete-target-group --target-group-arn x", Destructive, DEL),
    ("aws ec2 terminate-instances --instance-ids i-1", Destructive, DEL),
    ("aws ecr batch-delete-image --repository-name r", Destructive, DEL),
    ("aws sns unsubscribe --subscription-arn a", Destructive, DEL),
    ("aws elbv2 deregister-targets --target-group-arn a", Destructive, DEL),
    ("aws s3 sync ./backup s3://b/ --delete", Destructive, SYNC),
    ("aws secretsmanager put-secret-value --secret-id s --secret-string x", Destructive, &["cloud.overwrite"]),
    ("aws route53 change-resource-record-sets --change-batch '{\"Action\":\"DELETE\"}'", Destructive, DEL),
    ("gcloud compute instances delete vm1", Destructive, DEL),
    ("gcloud artifacts docker images delete img", Destructive, DEL),
    ("gcloud apigee deployments undeploy --api=a", Destructive, DEL),
    ("az group delete -n rg", Destructive, DEL),
    ("az storage blob delete-batch -s c", Destructive, DEL),
    ("azcopy sync ./l https://a/c --delete-destination true", Destructive, SYNC),
    ("gsutil -m rm -r gs://bucket", Destructive, DEL),
    ("gsutil rsync -d gs://a gs://b", Destructive, SYNC),
    ("gh -R owner/repo secret remove FOO", Destructive, DEL),
    ("gh repo delete owner/repo --yes", Destructive, DEL),
    ("op connect token delete abc", Destructive, DEL),
    ("vault kv destroy -versions=1 secret/x", Destructive, DEL),
    ("vault token revoke abc", Destructive, DEL),
    ("vault secrets disable kv/", Destructive, &["cloud.disable"]),
    ("vault --namespace admin secrets disable kv/", Destructive, &["cloud.disable"]),
    ("aws logs delete-log-group --log-group-name /aws/x", Destructive, DEL),
    ("curl -X POST http://p:9090/api/v1/admin/tsdb/delete_series?match[]=up", Destructive, HTTP),
    ("stripe api_keys roll", Destructive, DEL),
    ("gitlab-rake gitlab:backup:restore", Destructive, DEL),
    ("nats kv del KV key", Destructive, DEL),
    ("rabbitmqctl delete_vhost /prod", Destructive, DEL),
    ("rabbitmqctl force_reset", Destructive, DEL),
    ("kafka-topics --bootstrap-server b:9092 --delete --topic t", Destructive, DEL),
    ("kafka-delete-records --offset-json-file f", Destructive, DEL),
    ("rclone sync /src remote:b", Destructive, SYNC),
    ("rclone deletefile remote:b/f", Destructive, DEL),
    ("restic forget --keep-last 1 --prune", Destructive, DEL),
    ("restic unlock --remove-all", Destructive, DEL),
    ("borg compact repo", Destructive, DEL),
    ("mc mirror --remove a/src a/dst", Destructive, SYNC),
    ("deck gateway sync --select-tag t", Destructive, SYNC),
    ("java -jar jenkins-cli.jar -s http://j/ delete-job my-job", Destructive, DEL),
    ("firebase firestore:delete --all-collections", Destructive, DEL),
    ("helm uninstall release", Destructive, DEL),
    ("kubectl delete pod p", Destructive, DEL),
    ("kubectl -n x delete ns y", Destructive, DEL),
    ("kubectl drain node1", Destructive, STOP),
    ("kubectl scale deploy web --replicas=0", Destructive, STOP),
    ("terraform destroy", Destructive, DEL),
    ("terraform apply -auto-approve", Destructive, &["cloud.apply_unreviewed"]),
    ("tofu apply -destroy", Destructive, DEL),
    ("pulumi destroy --yes", Destructive, DEL),
    ("docker rm -f c", Destructive, REMOVE),
    ("docker rmi image", Destructive, REMOVE),
    ("docker system prune -af", Destructive, REMOVE),
    ("docker volume rm data", Destructive, REMOVE),
    ("podman image prune", Destructive, REMOVE),
    ("docker compose down -v", Destructive, REMOVE),
    ("docker-compose down --volumes", Destructive, REMOVE),
    ("docker compose down", Destructive, STOP),
    ("docker stop web", Destructive, STOP),
    ("nginx -s stop", Destructive, STOP),
    ("curl -X DELETE https://api.example.com/v1/x", Destructive, HTTP),
    ("curl -XDELETE localhost:9200/i", Destructive, HTTP),
    ("curl --request=delete https://a/x", Destructive, HTTP),
    ("curl https://a/x -X DELETE", Destructive, HTTP),
    ("curl -X POST http://localhost:9200/i/_delete_by_query", Destructive, HTTP),
    ("curl -X POST http://jenkins/job/x/doDelete", Destructive, HTTP),
    ("wget --method=DELETE https://a/x", Destructive, HTTP),
    ("gh api -X DELETE repos/o/r", Destructive, HTTP),
    ("glab api --method DELETE /projects/1", Destructive, HTTP),
    ("http DELETE :9200/my-index", Destructive, HTTP),
    ("http POST :9200/my-index/_delete_by_query", Destructive, HTTP),
    // Undoable changes to a remote service: moderate, held for automation by policy.
    ("gh workflow disable deploy.yml", Moderate, CHANGE),
    ("gh repo archive owner/repo", Moderate, CHANGE),
    ("wrangler deployments rollback", Moderate, CHANGE),
    ("mc admin policy unset myminio policyname", Moderate, CHANGE),
    ("unleash features disable t", Moderate, CHANGE),
];

/// Near misses: what these CLIs do that loses nothing is left to `general`.
const LEFT: &[&str] = &[
    "aws s3 ls",
    "aws s3 cp f s3://b/k",
    "aws s3 sync ./d s3://b --dryrun",
    "aws ec2 describe-instances",
    "aws s3api get-object --bucket b --key k o",
    "aws secretsmanager get-secret-value --secret-id s",
    "gcloud storage ls gs://b",
    "gh pr list",
    "gh repo view",
    "gh issue create --title delete",
    "kubectl get pods",
    "kubectl exec pod -- rm -rf /x",
    "docker ps",
    "docker run --rm img",
    "docker logs x",
    "docker exec c rm -rf /x",
    "docker build -t x .",
    "nats kv get KV delete",
    "rclone sync src: dst: --dry-run",
    "rclone copy a b:",
    "restic backup /srv",
    "terraform plan -destroy",
    "terraform apply",
    "pulumi up",
    "curl https://example.com",
    "curl -m 5 https://a/delete",
    "curl -X GET https://a/x/delete",
    "curl -X POST https://a/v3/messages -d x",
    "http GET :9200/_cat/indices",
    "wget --delete-after https://a/f",
    "vault kv get secret/x",
    "vault kv put secret/x k=v",
    "azcopy sync a b --delete-destination=false",
    "kafka-topics --bootstrap-server b --list",
    "nginx -s reload",
    "deck diff",
    "mc ls a/b",
    "rsync --delete --dry-run a/ b/",
    "rsync -avzn --delete a/ b/",
    "restic restore latest --target /tmp/out",
    "docker logs web",
    "gsutil rsync gs://a gs://b",
    "kubectl scale deploy web --replicas=3",
];

#[test]
fn cloud_table() {
    check(HELD);
    for line in LEFT {
        let a = crate::analyse::shell(
            line,
            &crate::analyse::Context {
                cwd: "/home/u/project",
                home: Some("/home/u"),
                truncated: false,
            },
        );
        let ours = a.findings.iter().find(|f| f.id.starts_with("cloud."));
        assert!(ours.is_none(), "{line:?}: {:?}", a.findings);
    }
}
