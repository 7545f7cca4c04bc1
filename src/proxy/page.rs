//! The live page of `--ui`: one self-contained document in the look of the `check` HTML report
//! (its style sheet, [`crate::outputs::check::html::STYLE`]), with no external asset and a
//! Content-Security-Policy that allows only its own inline style and script and the event
//! stream of its own origin. The script opens `/events` and puts each exchange in the list as
//! it arrives, in call order, the newest on top (judgements may finish out of order): number,
//! method and tool, outcome, latency; opened, the verdict's summary, the deciding rule linked to
//! the spec with its sentence quoted, the findings and the notes. A filter by outcome and by
//! tool hides the others. Everything from the traffic is set as text (`textContent`), never as
//! markup; the only links are `https://` spec URLs.

use crate::outputs::check::html::{STYLE, escape};

/// What the page adds to the report's style: the live list.
const LIVE_STYLE: &str = r#"
#calls{list-style:none;padding:0;margin:.5rem 0}
#calls li{border:1px solid #d0d7de;border-radius:6px;margin:.35rem 0;padding:.3rem .5rem}
#calls summary{display:flex;flex-wrap:wrap;gap:.2rem .7rem;align-items:baseline}
#calls .n{color:#57606a;font-variant-numeric:tabular-nums}
#calls .what{font-weight:600;overflow-wrap:anywhere}
#calls .ms{color:#57606a;font-size:.85rem;margin-left:auto}
#calls .detail{margin:.3rem 0 .1rem}
.oc{font-weight:700}.oc-good{color:#1a7f37}.oc-warn{color:#9a6700}.oc-bad{color:#cf222e}.oc-info{color:#0969da}
#status{font-size:.85rem}
"#;

const SCRIPT: &str = r#"
(function(){
var list=document.getElementById('calls'),f=document.getElementById('filter'),status=document.getElementById('status');
var counts=document.getElementById('counts'),seen={},tools={},outcomes={},total=0;
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
function tone(o){if(o==='TOOL_SUCCESS'||o==='NOTIFICATION_ACCEPTED')return 'oc-good';if(o==='INPUT_REQUIRED'||o==='TASK_CREATED'||o==='NOT_A_TOOL_CALL')return 'oc-info';if(o==='TOOL_ERROR'||o==='JSONRPC_ERROR')return 'oc-warn';return 'oc-bad';}
function option(sel,map,v){if(map[v])return;map[v]=1;var o=el('option',null,v);o.value=v;sel.appendChild(o);}
function apply(){var oc=f.elements.outcome.value,tl=f.elements.tool.value,shown=0;
 list.querySelectorAll('li').forEach(function(li){var ok=(!oc||li.dataset.outcome===oc)&&(!tl||li.dataset.tool===tl);li.hidden=!ok;if(ok)shown++;});
 document.getElementById('shown').textContent=shown+' of '+total+' shown';}
function add(e){
 if(seen[e.seq])return;seen[e.seq]=1;total++;
 var v=e.record&&e.record.verdicts?e.record.verdicts[0]:null;
 var outcome=v?v.outcome:'NOT_JUDGED',tool=e.tool||'';
 var li=el('li');li.dataset.outcome=outcome;li.dataset.tool=tool;li.id='call-'+e.seq;
 var d=el('details'),s=el('summary');
 s.appendChild(el('span','n','#'+e.seq));
 s.appendChild(el('span','what',(e.method||'request')+(tool?' '+tool:'')));
 s.appendChild(el('span','oc '+(v?tone(outcome):'oc-bad'),outcome));
 if(v)s.appendChild(el('span','muted',v.protocol));
 if(e.latencyMs!=null)s.appendChild(el('span','ms',e.latencyMs+' ms'));
 d.appendChild(s);
 var body=el('div','detail');
 if(!v){body.appendChild(el('p',null,e.notJudged||'not judged'));}
 else{
  body.appendChild(el('p',null,v.summary));
  (v.cites||[]).slice(0,1).forEach(function(c){
   var p=el('p','why');p.appendChild(document.createTextNode('decided by '));
   var code=el('code',null,c.id);
   if(/^https:\/\//.test(c.url)){var a=el('a');a.href=c.url;a.rel='noreferrer';a.appendChild(code);p.appendChild(a);}else p.appendChild(code);
   p.appendChild(document.createTextNode(' ('+c.level+')'));body.appendChild(p);
   if(c.quote)body.appendChild(el('blockquote',null,c.quote));
  });
  if((v.findings||[]).length){var ul=el('ul');
   v.findings.forEach(function(x){var li2=el('li');li2.appendChild(el('span','sev-'+x.severity,x.severity+' '));li2.appendChild(el('code',null,x.rule));li2.appendChild(document.createTextNode(' '+x.message));ul.appendChild(li2);});
   body.appendChild(ul);}
 }
 (e.notes||[]).forEach(function(n){body.appendChild(el('p','muted',n));});
 d.appendChild(body);li.appendChild(d);li.dataset.seq=e.seq;
 var at=list.firstChild;while(at&&+at.dataset.seq>e.seq)at=at.nextSibling;list.insertBefore(li,at);
 option(f.elements.outcome,outcomes,outcome);if(tool)option(f.elements.tool,tools,tool);
 counts.textContent=total+' judged';apply();
}
f.addEventListener('change',apply);f.addEventListener('reset',function(){setTimeout(apply,0);});
var src=new EventSource('/events');
src.onmessage=function(m){try{add(JSON.parse(m.data));}catch(x){}};
src.onopen=function(){status.textContent='live';};
src.onerror=function(){status.textContent='reconnecting…';};
apply();
})();
"#;

/// The page, naming the upstream.
pub(crate) fn render(upstream: &str) -> String {
    let upstream = escape(&crate::views::diag::sanitize(upstream));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'\">\n<title>mcp-verdict proxy</title>\n<style>{STYLE}{LIVE_STYLE}</style>\n</head>\n<body>\n<h1>mcp-verdict proxy</h1>\n<p class=\"muted\">relaying to <code>{upstream}</code> · <span id=\"status\">connecting…</span> · <span id=\"counts\">0 judged</span></p>\n<form class=\"filter\" id=\"filter\"><label>outcome <select name=\"outcome\"><option value=\"\">all</option></select></label><label>tool <select name=\"tool\"><option value=\"\">all</option></select></label><button type=\"reset\">show all</button><span class=\"muted\" id=\"shown\"></span></form>\n<ol id=\"calls\"></ol>\n<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
}
