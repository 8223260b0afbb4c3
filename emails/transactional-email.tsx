import {
  Body,
  Button,
  Container,
  Head,
  Heading,
  Hr,
  Html,
  Preview,
  Section,
  Text,
} from "@react-email/components";
import { composeTexts, type EmailType, emailLanguage, safeGreeting, type TemplateField } from "./email-texts";

export type TransactionalEmailProps = {
  type: EmailType;
  actionUrl: string;
  userName?: string;
  message?: string;
  /** A list under the message (as written: data, never a template), with the line that introduces it. */
  list?: { intro: string; items: string[] };
  /** The application prefix of the heading; the sender passes getSystemConfig("APP_NAME"). */
  appName?: string;
  /** The recipient's language ("de"); English when absent or not one of ours. */
  language?: string | null;
  /** The organisation's own words for this type and language (null fields keep the defaults). */
  template?: Partial<Record<TemplateField, string | null>> | null;
  /** Placeholder values beyond appName and userName (inviterName, expiresIn). */
  values?: Record<string, string>;
};

const styles = {
  body: { backgroundColor: "#f1f5f9", fontFamily: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif" },
  container: {
    backgroundColor: "#ffffff",
    margin: "24px auto",
    padding: "32px",
    maxWidth: "560px",
    borderRadius: "8px",
  },
  heading: { fontSize: "22px", color: "#0f172a", margin: "0 0 16px" },
  text: { fontSize: "15px", lineHeight: "24px", color: "#1e293b" },
  button: {
    backgroundColor: "#4f46e5",
    color: "#ffffff",
    borderRadius: "6px",
    padding: "12px 20px",
    fontSize: "15px",
    fontWeight: 600,
    textDecoration: "none",
  },
  footer: { fontSize: "13px", color: "#64748b" },
} as const;

/** A template's line breaks start paragraphs; HTML would fold them into spaces. */
function paragraphs(text: string): string[] {
  return text.split(/\n+/).filter((line) => line.trim() !== "");
}

/** One layout for every transactional email: heading, greeting, message, button, footer. */
export function TransactionalEmail({
  type,
  actionUrl,
  userName,
  message,
  list,
  appName = "Admin Dashboard",
  language,
  template,
  values,
}: TransactionalEmailProps) {
  const texts = composeTexts(type, language, template, { ...values, appName, userName });
  // A sender's own message is data (a notice's text), never a template.
  const body = message ?? texts.message;
  return (
    <Html lang={emailLanguage(language)}>
      <Head />
      <Preview>{body}</Preview>
      <Body style={styles.body}>
        <Container style={styles.container}>
          <Heading as="h1" style={styles.heading}>
            {texts.heading}
          </Heading>
          {userName ? <Text style={styles.text}>{safeGreeting(userName, language)}</Text> : null}
          {paragraphs(body).map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: paragraphs of one text, in order
            <Text key={i} style={styles.text}>
              {line}
            </Text>
          ))}
          {list ? (
            <>
              <Text style={styles.text}>{list.intro}</Text>
              {list.items.length ? (
                <ul style={styles.text}>
                  {list.items.map((item, i) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: a static list; two items may read alike
                    <li key={i}>{item}</li>
                  ))}
                </ul>
              ) : null}
            </>
          ) : null}
          <Section style={{ margin: "24px 0" }}>
            <Button href={actionUrl} style={styles.button}>
              {texts.button}
            </Button>
          </Section>
          <Hr />
          {paragraphs(texts.footer).map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: paragraphs of one text, in order
            <Text key={i} style={styles.footer}>
              {line}
            </Text>
          ))}
        </Container>
      </Body>
    </Html>
  );
}

// Sample props for `npm run email:dev`.
TransactionalEmail.PreviewProps = {
  type: "verification",
  actionUrl: "http://localhost:3000/api/auth/verify-email?token=preview",
  userName: "Ada Lovelace",
} satisfies TransactionalEmailProps;
