//! A headless user agent for oidc-provider's development interactions: it follows the
//! authorization request's redirects by hand, fills the login form (any login, any
//! password) and submits the consent form, and stops at the first redirect that leaves the
//! server: the one to the client's `redirect_uri`, with `code` and `state` (or `error`).

use std::collections::BTreeMap;

use url::Url;

use super::OidcProvider;

/// Requests one login may take (it needs six: authorize, login page, login post, resume,
/// consent page, consent post, resume).
const MAX_STEPS: usize = 16;
/// Bound on the whole walk.
const LOGIN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

impl OidcProvider {
    /// [`OidcProvider::login_as`] with the login `user`.
    pub async fn login(&self, authorize_url: &str) -> Result<Url, String> {
        self.login_as(authorize_url, "user").await
    }

    /// Visits `authorize_url` with a fresh cookie jar, signs in as `login` (the token's
    /// `sub`) and grants what the consent page asks; returns the redirect to the client. A
    /// refusal redirected to the client (`error=...`) is `Ok` too; an error page is `Err`.
    pub async fn login_as(&self, authorize_url: &str, login: &str) -> Result<Url, String> {
        tokio::time::timeout(LOGIN_TIMEOUT, self.walk(authorize_url, login))
            .await
            .map_err(|_| format!("login did not finish within {LOGIN_TIMEOUT:?}"))?
    }

    async fn walk(&self, authorize_url: &str, login: &str) -> Result<Url, String> {
        let origin = Url::parse(self.issuer()).map_err(|e| e.to_string())?.origin();
        let mut jar = Jar::default();
        let mut url = Url::parse(authorize_url).map_err(|e| format!("{authorize_url}: {e}"))?;
        let mut form: Option<Vec<(&str, &str)>> = None;
        for _ in 0..MAX_STEPS {
            if url.origin() != origin {
                return Ok(url);
            }
            let request = match form.take() {
                None => self.http.get(url.clone()),
                Some(fields) => self
                    .http
                    .post(url.clone())
                    .header("content-type", "application/x-www-form-urlencoded")
                    .body(
                        url::form_urlencoded::Serializer::new(String::new())
                            .extend_pairs(fields)
                            .finish(),
                    ),
            };
            let response = request
                .header("cookie", jar.header())
                .send()
                .await
                .map_err(|e| format!("{url}: {e}"))?;
            jar.absorb(response.headers());
            let status = response.status();
            if status.is_redirection() {
                let location = response
                    .headers()
                    .get("location")
                    .and_then(|l| l.to_str().ok())
                    .ok_or_else(|| format!("{url}: {status} without a location"))?;
                url = url
                    .join(location)
                    .map_err(|e| format!("{url}: location {location}: {e}"))?;
                continue;
            }
            let page = response.text().await.map_err(|e| format!("{url}: {e}"))?;
            let (action, prompt) = interaction_form(&page).ok_or_else(|| {
                format!(
                    "{url}: {status}, not a login or consent page: {}",
                    visible_text(&page)
                )
            })?;
            url = url
                .join(&action)
                .map_err(|e| format!("form action {action}: {e}"))?;
            form = Some(match prompt.as_str() {
                "login" => vec![("prompt", "login"), ("login", login), ("password", "any")],
                "consent" => vec![("prompt", "consent")],
                other => return Err(format!("{url}: unknown interaction prompt {other}")),
            });
        }
        Err(format!(
            "no redirect to the client after {MAX_STEPS} requests (last: {url})"
        ))
    }
}

/// The interaction cookies by name. oidc-provider scopes them by path (`/interaction/UID`,
/// `/auth/UID`); sending all of them everywhere on its one origin is harmless.
#[derive(Default)]
struct Jar(BTreeMap<String, String>);

impl Jar {
    fn absorb(&mut self, headers: &reqwest::header::HeaderMap) {
        for cookie in headers
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
        {
            let mut attributes = cookie.split(';').map(str::trim);
            let Some((name, value)) = attributes.next().and_then(|p| p.split_once('=')) else {
                continue;
            };
            // A cleared cookie comes back empty with an expiry in 1970.
            let cleared = value.is_empty()
                || attributes
                    .any(|a| a.eq_ignore_ascii_case("max-age=0") || a.to_ascii_lowercase().contains("1970"));
            if cleared {
                self.0.remove(name);
            } else {
                self.0.insert(name.to_owned(), value.to_owned());
            }
        }
    }

    fn header(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// The devInteractions page's form: its `action` and its hidden `prompt` (`login` or
/// `consent`).
fn interaction_form(page: &str) -> Option<(String, String)> {
    let form = &page[page.find("<form")?..];
    let action = attribute(&form[..form.find('>')?], "action")?;
    let prompt = form.find("name=\"prompt\"").and_then(|at| {
        let input = &form[form[..at].rfind('<')?..];
        attribute(&input[..input.find('>')?], "value")
    })?;
    Some((action.replace("&amp;", "&"), prompt))
}

fn attribute(tag: &str, name: &str) -> Option<String> {
    let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
    let end = tag[start..].find('"')?;
    Some(tag[start..start + end].to_owned())
}

/// An error page's text without its markup, shortened, for a message.
fn visible_text(page: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in page.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    text.chars().take(400).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_login_form_is_found() {
        let page = r#"<div><form autocomplete="off" action="http://127.0.0.1:1/interaction/abc" method="post">
  <input type="hidden" name="prompt" value="login"/>
  <input required type="text" name="login"></form>"#;
        assert_eq!(
            interaction_form(page),
            Some(("http://127.0.0.1:1/interaction/abc".into(), "login".into()))
        );
        assert_eq!(interaction_form("<p>oops</p>"), None);
    }

    #[test]
    fn cleared_cookies_leave_the_jar() {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.append(
            "set-cookie",
            "_interaction=abc; path=/interaction/abc; httponly"
                .parse()
                .unwrap(),
        );
        headers.append("set-cookie", "_session=s1; path=/".parse().unwrap());
        let mut jar = Jar::default();
        jar.absorb(&headers);
        assert_eq!(jar.header(), "_interaction=abc; _session=s1");
        let mut cleared = reqwest::header::HeaderMap::new();
        cleared.append(
            "set-cookie",
            "_interaction=; path=/interaction/abc; expires=Thu, 01 Jan 1970 00:00:00 GMT"
                .parse()
                .unwrap(),
        );
        jar.absorb(&cleared);
        assert_eq!(jar.header(), "_session=s1");
    }
}
